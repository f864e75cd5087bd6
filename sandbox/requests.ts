import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ASSETS, NETWORKS, isSupportedPair, isWalletAddressFor } from '../src/domain/assets';
import { FIAT_CURRENCIES, FIAT_DECIMALS } from '../src/domain/currencies';
import { AmountError, formatUnits, toUnits } from '../src/domain/money';

// What the sandbox's API accepts. Like a real provider's, it normalises case, checks amounts
// against the currency's decimals and refuses pairs and wallet addresses that cannot settle.

/** A reference is also put into our service's URL by the test helper, so it stays URL-safe. */
export const REFERENCE = /^[A-Za-z0-9_-]{1,100}$/;
export const PAYMENT_ID = /^sbx_pay_[A-Za-z0-9]{24}$/;

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }).max(2048);

const priced = z.object({
  sourceAmount: z.string().regex(/^\d{1,15}(\.\d+)?$/, 'must be a decimal string such as "19.99"'),
  sourceCurrency: z.string().toUpperCase().pipe(z.enum(FIAT_CURRENCIES)),
  destinationAsset: z.string().toUpperCase().pipe(z.enum(ASSETS)),
  network: z.string().toLowerCase().pipe(z.enum(NETWORKS)),
});

/** The amount in the currency's decimals, positive; the pair must be one that settles. */
function checkTerms<T extends z.infer<typeof priced>>(value: T, ctx: z.RefinementCtx): T {
  try {
    const units = toUnits(value.sourceAmount, FIAT_DECIMALS[value.sourceCurrency]);
    if (units <= 0n) ctx.addIssue({ code: 'custom', path: ['sourceAmount'], message: 'must be greater than zero' });
    value.sourceAmount = formatUnits(units, FIAT_DECIMALS[value.sourceCurrency]);
  } catch (err) {
    if (!(err instanceof AmountError)) throw err;
    ctx.addIssue({ code: 'custom', path: ['sourceAmount'], message: `${err.message} for ${value.sourceCurrency}` });
  }
  if (!isSupportedPair(value.destinationAsset, value.network)) {
    ctx.addIssue({ code: 'custom', path: ['network'], message: `${value.destinationAsset} is not delivered on ${value.network}` });
  }
  return value;
}

export const quoteQuery = priced.transform(checkTerms);

export const paymentRequest = priced
  .extend({
    reference: z.string().regex(REFERENCE, 'must be 1-100 letters, digits, "_" or "-"'),
    walletAddress: z.string().min(1).max(128),
    countryCode: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')
      .toUpperCase(),
    customerEmail: z.email().max(254).optional(),
    callbackUrl: httpUrl,
    returnUrl: httpUrl,
  })
  .transform(checkTerms)
  .superRefine((value, ctx) => {
    if (!isWalletAddressFor(value.network, value.walletAddress)) {
      ctx.addIssue({ code: 'custom', path: ['walletAddress'], message: `is not a ${value.network} address` });
    }
  });

export type PaymentRequest = z.infer<typeof paymentRequest>;

export const testPayRequest = z.object({
  reference: z.string().regex(REFERENCE, 'must be 1-100 letters, digits, "_" or "-"'),
  outcome: z.enum(['succeeded', 'declined']),
  /** Funds sent to this deposit's address, as a customer who kept it would (else: the reference's latest choice). */
  depositId: z.string().optional(),
});

export type SandboxErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'not_found'
  | 'reference_conflict'
  | 'payment_not_payable'
  | 'payment_closed'
  | 'payment_not_cancelable'
  | 'validation_error'
  | 'callback_not_allowed'
  | 'country_not_supported'
  | 'service_refused'
  | 'service_unreachable'
  | 'network_not_configured'
  | 'chain_unavailable'
  | 'internal_error';

/** The sandbox's one error shape: `{ ok: false, error, message, details? }`. */
export function sendError(
  reply: FastifyReply,
  status: number,
  error: SandboxErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
) {
  return reply.status(status).send({ ok: false, error, message, ...extra });
}

export function sendInvalid(reply: FastifyReply, issues: z.core.$ZodIssue[]) {
  const details = issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  return sendError(reply, 422, 'validation_error', 'The request is not valid.', { details });
}
