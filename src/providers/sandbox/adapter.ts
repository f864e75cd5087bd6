import { z } from 'zod';
import { checkSignature } from '../../domain/signatures';
import {
  ProviderError,
  type CallbackVerification,
  type ProviderAdapter,
  type ProviderDeposit,
  type ProviderDepositRequest,
  type ProviderPayment,
  type ProviderPaymentRequest,
  type ProviderQuote,
} from '../types';
import { sandboxServesCountry, sandboxSupportsCurrency } from './coverage';

// Our side of the sandbox provider: its API over HTTP, and the verification of its signed callbacks.
// A real on-ramp's adapter has this same shape.

export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';
const REQUEST_TIMEOUT_MS = 15_000;

const retryable = (status: number) => status >= 500 || status === 408 || status === 429;

const callbackBody = z.object({
  id: z.string().min(1).max(200),
  type: z.enum(['payment.processing', 'payment.succeeded', 'payment.failed']),
  createdAt: z.string(),
  data: z.object({
    paymentId: z.string().min(1),
    reference: z.string().min(1),
    status: z.string(),
    sourceAmount: z.string(),
    sourceCurrency: z.string(),
    destinationAsset: z.string(),
    network: z.string(),
    walletAddress: z.string(),
    destinationAmount: z.string().optional(),
    transactionHash: z.string().optional(),
    explorerUrl: z.string().optional(),
    failureReason: z.string().optional(),
  }),
});

const paymentAnswer = z.object({ id: z.string(), checkoutUrl: z.string(), status: z.string() });
const depositAnswer = z.object({
  id: z.string(),
  address: z.string(),
  asset: z.string(),
  network: z.string(),
  amount: z.string(),
  expiresAt: z.string(),
});
const quoteAnswer = z.object({ destinationAmount: z.string(), rate: z.string() });

export function createSandboxAdapter(options: {
  /** How this process reaches the sandbox's API. */
  url: string;
  /** Where customers' browsers reach its pages (default: url); the hosted page's CSP allows it. */
  publicUrl?: string;
  apiKey: string;
  callbackSecret: string;
  /** Per request; the API passes a short one, as a customer is waiting. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}): ProviderAdapter {
  const http = options.fetch ?? fetch;

  async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    let res: Response;
    let text: string;
    try {
      res = await http(`${options.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${options.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      // Unreachable or too slow: the same request may well succeed in a moment.
      throw new ProviderError(`sandbox provider unreachable: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    if (!res.ok)
      throw new ProviderError(`sandbox provider answered ${res.status}: ${text.slice(0, 300)}`, retryable(res.status), res.status);
    return JSON.parse(text) as unknown;
  }

  /** A payment's or deposit's closing; 409: the customer paid first, and the answer names its status. */
  async function cancel(path: string): Promise<{ closed: boolean; status: string }> {
    try {
      const answer = z.object({ status: z.string() }).parse(await call('POST', path));
      return { closed: true, status: answer.status };
    } catch (err) {
      if (err instanceof ProviderError && err.status === 409)
        return { closed: false, status: /already (\w+)/.exec(err.message)?.[1] ?? 'processing' };
      throw err;
    }
  }

  return {
    name: 'sandbox',
    railType: 'fiat_to_crypto',
    pageOrigin: new URL(options.publicUrl ?? options.url).origin,
    explorerUrl: (hash) => `${(options.publicUrl ?? options.url).replace(/\/+$/, '')}/explorer/tx/${hash}`,
    servesCountry: sandboxServesCountry,
    supportsCurrency: sandboxSupportsCurrency,

    async quote(input): Promise<ProviderQuote> {
      const query = new URLSearchParams(input).toString();
      return quoteAnswer.parse(await call('GET', `/v1/quote?${query}`));
    },

    async createPayment(request: ProviderPaymentRequest): Promise<ProviderPayment> {
      const payment = paymentAnswer.parse(await call('POST', '/v1/payments', request));
      return { providerPaymentId: payment.id, redirectUrl: payment.checkoutUrl, status: payment.status };
    },

    async cancelPayment(providerPaymentId: string): Promise<{ closed: boolean; status: string }> {
      return cancel(`/v1/payments/${encodeURIComponent(providerPaymentId)}/cancel`);
    },

    async cancelDeposit(depositId: string): Promise<{ closed: boolean; status: string }> {
      return cancel(`/v1/deposits/${encodeURIComponent(depositId)}/cancel`);
    },

    async createDeposit(request: ProviderDepositRequest): Promise<ProviderDeposit> {
      const d = depositAnswer.parse(await call('POST', '/v1/deposits', request));
      return { depositId: d.id, address: d.address, asset: d.asset, network: d.network, amount: d.amount, expiresAt: d.expiresAt };
    },

    verifyCallback(rawBody, headers, now): CallbackVerification {
      const header = headers[SANDBOX_SIGNATURE_HEADER];
      const check = checkSignature(rawBody, Array.isArray(header) ? header[0] : header, options.callbackSecret, {
        now,
        toleranceSeconds: 300,
      });
      if (check !== 'ok') return { ok: false, reason: check };
      let parsed: z.infer<typeof callbackBody>;
      try {
        parsed = callbackBody.parse(JSON.parse(rawBody));
      } catch {
        return { ok: false, reason: 'malformed_body' };
      }
      const d = parsed.data;
      return {
        ok: true,
        event: {
          provider: 'sandbox',
          eventId: parsed.id,
          type: parsed.type,
          providerPaymentId: d.paymentId,
          reference: d.reference,
          sourceAmount: d.sourceAmount,
          sourceCurrency: d.sourceCurrency,
          destinationAsset: d.destinationAsset,
          network: d.network,
          walletAddress: d.walletAddress,
          destinationAmount: d.destinationAmount,
          transactionHash: d.transactionHash,
          explorerUrl: d.explorerUrl,
          failureReason: d.failureReason,
          occurredAt: parsed.createdAt,
        },
      };
    },
  };
}
