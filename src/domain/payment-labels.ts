import type { PaymentStatus } from './payment-status';

// How a checkout session was paid, told the same way on the hosted page, in
// the lookups, the webhooks, the Temporal search attributes and the settlements CSV. The rail is
// stored once, on the session row (`rail_type`), when the payment completes; every surface derives
// the provider and the event source from it here, so none can say "sandbox" for a wallet payment.

/** The customer paid fiat to an on-ramp, which delivered the stablecoin (the session's provider). */
export const RAIL_FIAT_TO_CRYPTO = 'fiat_to_crypto';
/** The customer sent the stablecoin from their own wallet to the deposit address: no provider took part. */
export const RAIL_CRYPTO_TRANSFER = 'crypto_transfer';
export type RailType = typeof RAIL_FIAT_TO_CRYPTO | typeof RAIL_CRYPTO_TRANSFER;

/**
 * The rail of a completion. A provider payment exists only when the customer pressed Pay (the on-ramp
 * was told to deliver to the deposit address); money that completed a session with none came from
 * the customer's own wallet ("Pay from your wallet", `POST …/deposit`). Until a session completes it
 * keeps the rail it was opened with, the on-ramp's.
 */
export function railOfCompletion(providerPaymentId: string | null): RailType {
  return providerPaymentId ? RAIL_FIAT_TO_CRYPTO : RAIL_CRYPTO_TRANSFER;
}

export interface PaymentLabels {
  railType: RailType;
  /** The on-ramp that took the payment; null for a wallet payment. */
  provider: string | null;
}

/** A session's labels from its row: `provider` there is the on-ramp it is routed to (quotes, Pay). */
export function paymentLabels(session: { railType: string; provider: string }): PaymentLabels {
  return session.railType === RAIL_CRYPTO_TRANSFER
    ? { railType: RAIL_CRYPTO_TRANSFER, provider: null }
    : { railType: RAIL_FIAT_TO_CRYPTO, provider: session.provider };
}

const EVENT_SOURCE: Record<PaymentStatus, string> = {
  pending: 'checkout',
  processing: 'provider_webhook',
  completed: 'provider_webhook',
  failed: 'provider_webhook',
  expired: 'session_expiry',
  canceled: 'hosted_checkout',
};

/** What caused a v1 event: the payout, the chain (a wallet payment's completion), the provider, the page or the clock. */
export function eventSourceOf(status: PaymentStatus, railType: string, event?: 'payment.settled'): string {
  if (event === 'payment.settled') return 'payout';
  if (status === 'completed' && railType === RAIL_CRYPTO_TRANSFER) return 'chain';
  return EVENT_SOURCE[status];
}

/**
 * How the money came, as a merchant reads it: `wallet` for a wallet payment (and for money that
 * arrived at the deposit address with no provider payment asked for: nothing else sends it there),
 * `provider` once the customer pressed Pay or the on-ramp completed it, `none` while neither happened.
 */
export type PaidWith = 'wallet' | 'provider' | 'none';

export function paidWithOf(s: { status: string; railType: string; providerPaymentId: string | null; arrivedMicro: bigint }): PaidWith {
  if (s.railType === RAIL_CRYPTO_TRANSFER) return 'wallet';
  if (s.providerPaymentId || s.status === 'completed') return 'provider';
  return s.arrivedMicro > 0n ? 'wallet' : 'none';
}

/** The words every page and CSV uses; a wallet payment never carries the provider's name. */
const WALLET_WORDS = "From the customer's wallet";

export function paidWithText(paidWith: PaidWith, provider: string | null): string {
  if (paidWith === 'wallet') return WALLET_WORDS;
  if (paidWith === 'provider') return `Through ${provider ?? 'the on-ramp'}`;
  return 'Not paid';
}

/**
 * An open payment some of whose money arrived but not all (the hosted page's "remaining"): only a
 * chain-verified payment knows what arrived, and only once its expected gross is fixed what remains.
 */
export function partPayment(
  s: { status: string; verification: string; depositAddress: string | null; expectedGrossMicro: bigint | null },
  arrivedMicro: bigint,
): { arrivedMicro: bigint; expectedMicro: bigint } | null {
  const open = s.status === 'pending' || s.status === 'processing';
  const expected = s.expectedGrossMicro;
  if (!open || s.verification !== 'chain' || s.depositAddress === null || expected === null) return null;
  return arrivedMicro > 0n && arrivedMicro < expected ? { arrivedMicro, expectedMicro: expected } : null;
}

/** How a payment reads to its merchant: the way it was paid, and the provider only when it took part. */
export function merchantPaymentLabels(
  s: { status: string; railType: string; provider: string; providerPaymentId: string | null },
  arrivedMicro: bigint,
): { paidWith: PaidWith; provider: string | null } {
  const paidWith = paidWithOf({ ...s, arrivedMicro });
  return { paidWith, provider: paidWith === 'provider' ? s.provider : null };
}
