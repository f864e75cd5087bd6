import { randomBytes, randomInt } from 'node:crypto';
import { z } from 'zod';
import { ASSETS, NETWORKS, isSupportedPair, isWalletAddressFor, type Network } from '../src/domain/assets';
import { randomBase62 } from '../src/domain/ids';
import { formatCrypto, parseCrypto } from '../src/domain/money';
import type { CallbackSender } from './callbacks';
import { explorerUrlFor, type Deliver, type Holdings } from './chain';
import type { Outcome } from './lifecycle';
import { REFERENCE } from './requests';
import type { CallbackAttempt, CallbackEvent, SandboxEventType, SandboxStore } from './store';

// Crypto rails of the simple API: the sandbox hands out a deposit address for a reference; the
// customer sends the crypto there (on a chain the sandbox has, a real transfer it sees arrive; the test
// helper "sends" it anywhere), and the sandbox forwards it to the customer's wallet on chain,
// announcing both steps with the same signed callbacks as its card payments.

const DEPOSIT_TTL_MS = 60 * 60 * 1000;
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export const depositRequest = z
  .object({
    reference: z.string().regex(REFERENCE, 'must be 1-100 letters, digits, "_" or "-"'),
    asset: z.string().toUpperCase().pipe(z.enum(ASSETS)),
    network: z.string().toLowerCase().pipe(z.enum(NETWORKS)),
    amount: z.string().regex(/^\d{1,12}\.\d{6}$/, 'must be a decimal string with 6 decimals'),
    destinationAsset: z.string().toUpperCase().pipe(z.enum(ASSETS)),
    destinationNetwork: z.string().toLowerCase().pipe(z.enum(NETWORKS)),
    walletAddress: z.string().min(1).max(128),
    callbackUrl: z.url({ protocol: /^https?$/ }).max(2048),
  })
  .superRefine((v, ctx) => {
    if (!isSupportedPair(v.asset, v.network))
      ctx.addIssue({ code: 'custom', path: ['network'], message: `${v.asset} is not taken on ${v.network}` });
    if (!isSupportedPair(v.destinationAsset, v.destinationNetwork)) {
      ctx.addIssue({
        code: 'custom',
        path: ['destinationNetwork'],
        message: `${v.destinationAsset} is not delivered on ${v.destinationNetwork}`,
      });
    }
    if (!isWalletAddressFor(v.destinationNetwork, v.walletAddress)) {
      ctx.addIssue({ code: 'custom', path: ['walletAddress'], message: `is not a ${v.destinationNetwork} address` });
    }
    if (parseCrypto(v.amount) <= 0n) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'must be greater than zero' });
  });

export type DepositRequest = z.infer<typeof depositRequest>;

export interface SandboxDeposit extends DepositRequest {
  id: string;
  address: string;
  /** canceled: the merchant platform closed it (the customer chose another way to pay); it takes no funds. */
  status: 'awaiting_funds' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  createdAt: string;
  expiresAt: string;
  transactionHash?: string;
  explorerUrl?: string;
}

/** A deposit address shaped like the network's own. */
export function depositAddressFor(network: Network): string {
  if (network === 'solana') return Array.from({ length: 44 }, () => BASE58[randomInt(BASE58.length)]).join('');
  if (network === 'tron') return `T${Array.from({ length: 33 }, () => BASE58[randomInt(BASE58.length)]).join('')}`;
  return `0x${randomBytes(20).toString('hex')}`;
}

export function createDeposits(deps: {
  store: SandboxStore;
  callbacks: CallbackSender;
  publicUrl: string;
  now: () => Date;
  deliver: Deliver;
  holdings: Holdings;
}) {
  const { store, callbacks, publicUrl, now, deliver, holdings } = deps;
  const byReference = new Map<string, SandboxDeposit>();
  const byId = new Map<string, SandboxDeposit>();

  function emit(d: SandboxDeposit, type: SandboxEventType, failureReason?: string) {
    const createdAt = now().toISOString();
    const id = `sbx_evt_${randomBase62(24)}`;
    const body = JSON.stringify({
      id,
      type,
      createdAt,
      data: {
        paymentId: d.id,
        reference: d.reference,
        status: d.status,
        sourceAmount: d.amount,
        sourceCurrency: d.asset,
        destinationAsset: d.destinationAsset,
        network: d.destinationNetwork,
        walletAddress: d.walletAddress,
        ...(d.status === 'succeeded'
          ? { destinationAmount: d.amount, transactionHash: d.transactionHash, explorerUrl: d.explorerUrl }
          : {}),
        ...(failureReason ? { failureReason } : {}),
      },
    });
    const event: CallbackEvent = { id, type, paymentId: d.id, createdAt, body, state: 'pending', attempts: [] };
    store.addEvent(event);
    return { eventId: id, type, firstAttempt: callbacks.send(d.callbackUrl, event) };
  }

  return {
    byReference: (reference: string) => byReference.get(reference),

    /**
     * One open deposit per reference: the same terms return the same address; other terms (the
     * customer picked another rail) replace a deposit that has not been funded.
     */
    open(request: DepositRequest): { kind: 'created' | 'existing' | 'conflict'; deposit: SandboxDeposit } {
      const existing = byReference.get(request.reference);
      if (existing) {
        const same =
          existing.asset === request.asset &&
          existing.network === request.network &&
          existing.amount === request.amount &&
          existing.walletAddress === request.walletAddress &&
          existing.destinationAsset === request.destinationAsset &&
          existing.destinationNetwork === request.destinationNetwork;
        if (same && Date.parse(existing.expiresAt) > now().getTime()) {
          // The customer came back to this rail: a deposit closed for another choice takes funds again.
          if (existing.status === 'canceled') existing.status = 'awaiting_funds';
          return { kind: 'existing', deposit: existing };
        }
        if (existing.status !== 'awaiting_funds' && existing.status !== 'canceled') return { kind: 'conflict', deposit: existing };
      }
      const at = now();
      const deposit: SandboxDeposit = {
        ...request,
        id: `sbx_dep_${randomBase62(24)}`,
        address: depositAddressFor(request.network),
        status: 'awaiting_funds',
        createdAt: at.toISOString(),
        expiresAt: new Date(at.getTime() + DEPOSIT_TTL_MS).toISOString(),
      };
      byReference.set(request.reference, deposit);
      byId.set(deposit.id, deposit);
      return { kind: 'created', deposit };
    },

    byId: (id: string) => byId.get(id),

    /**
     * The deposits still awaiting funds on a chain the sandbox has, whose address now holds their
     * amount: what a real on-ramp's deposit watcher would see. Each is then paid as the helper pays it.
     */
    async funded(): Promise<SandboxDeposit[]> {
      const at = now().getTime();
      const open = [...byId.values()].filter((d) => d.status === 'awaiting_funds' && Date.parse(d.expiresAt) > at);
      const held = await Promise.all(open.map((d) => holdings({ network: d.network, asset: d.asset, address: d.address })));
      return open.filter((d, i) => held[i] !== null && held[i]! >= parseCrypto(d.amount));
    },

    /** Closed by the merchant platform; idempotent, refused once funds arrived. */
    cancel(d: SandboxDeposit): { closed: boolean } {
      if (d.status === 'awaiting_funds') d.status = 'canceled';
      return { closed: d.status === 'canceled' };
    },

    /** The customer sends the crypto: processing, then the forward to their wallet (succeeded, with its hash). */
    async pay(
      d: SandboxDeposit,
      outcome: Outcome,
    ): Promise<{ eventId: string; type: SandboxEventType; firstAttempt: Promise<CallbackAttempt> }[]> {
      if (d.status !== 'awaiting_funds') return [];
      if (outcome === 'declined') {
        d.status = 'failed';
        return [emit(d, 'payment.failed', 'deposit_rejected')];
      }
      d.status = 'processing';
      const processing = emit(d, 'payment.processing');
      let hash: string;
      try {
        hash = await deliver({
          network: d.destinationNetwork,
          asset: d.destinationAsset,
          to: d.walletAddress,
          amount: formatCrypto(parseCrypto(d.amount)),
        });
      } catch {
        d.status = 'failed';
        return [processing, emit(d, 'payment.failed', 'delivery_failed')];
      }
      Object.assign(d, { status: 'succeeded', transactionHash: hash, explorerUrl: explorerUrlFor(publicUrl, hash) });
      store.addTransfer({
        hash,
        network: d.destinationNetwork,
        asset: d.destinationAsset,
        amount: formatCrypto(parseCrypto(d.amount)),
        to: d.walletAddress,
        paymentId: d.id,
        confirmedAt: now().toISOString(),
      });
      return [processing, emit(d, 'payment.succeeded')];
    },
  };
}

export type SandboxDeposits = ReturnType<typeof createDeposits>;
