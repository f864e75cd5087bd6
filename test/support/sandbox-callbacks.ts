import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { signatureHeader } from '../../src/domain/signatures';

// Callbacks shaped and signed the way the sandbox provider sends them, for tests that need to
// forge, replay, reorder or delay them.

export interface CallbackSession {
  id: string;
  amount: string;
  currency: string;
  destinationAsset: string;
  network: string;
  walletAddress: string;
}

export function sandboxEvent(
  session: CallbackSession,
  type: 'payment.processing' | 'payment.succeeded' | 'payment.failed',
  overrides: Record<string, unknown> = {},
) {
  const succeeded = type === 'payment.succeeded';
  return {
    id: `sbx_evt_${randomBytes(12).toString('hex')}`,
    type,
    createdAt: new Date().toISOString(),
    data: {
      paymentId: `sbx_pay_${session.id.slice(3)}`,
      reference: session.id,
      status: type === 'payment.processing' ? 'processing' : succeeded ? 'succeeded' : 'failed',
      sourceAmount: session.amount,
      sourceCurrency: session.currency,
      destinationAsset: session.destinationAsset,
      network: session.network,
      walletAddress: session.walletAddress,
      ...(succeeded
        ? {
            destinationAmount: '24.500000',
            transactionHash: `0x${randomBytes(32).toString('hex')}`,
            explorerUrl: 'http://127.0.0.1:1/explorer/tx/x',
          }
        : {}),
      ...(type === 'payment.failed' ? { failureReason: 'card_declined' } : {}),
      ...overrides,
    },
  };
}

export function postCallback(
  app: FastifyInstance,
  event: unknown,
  options: { secret: string; timestamp?: number; tamper?: (raw: string) => string; header?: string | null },
) {
  const raw = JSON.stringify(event);
  const t = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = options.header === undefined ? signatureHeader(options.secret, t, raw) : options.header;
  return app.inject({
    method: 'POST',
    url: '/providers/sandbox/callbacks',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'sandbox-signature': signature }) },
    payload: options.tamper ? options.tamper(raw) : raw,
  });
}
