import type { PaymentStatus } from './payment-status';

// Decisions §14 "Labels": how a checkout session was paid, told the same way on the hosted page, in
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
