import { isTerminal, type PaymentStatus } from './payment-status';

// A payment link is paid once, and a second payment is money an operator must send back. So at most
// one session of a link takes money at a time: the one whose customer started paying holds the link
// until its attempt can no longer bring money, and every other session is refused Pay and the deposit
// instructions meanwhile. Postgres reads these facts under the link's row lock (payments/link-tabs.ts).

/** What Postgres knows of one open session of a link, as far as its taking money goes. */
export interface LinkSessionFacts {
  status: PaymentStatus;
  expiresAt: Date;
  /** When its customer last pressed Pay (a provider attempt began). */
  payAttemptAt: Date | null;
  /** The provider payment of its attempts, once the provider answered. */
  providerPaymentId: string | null;
  /** When the provider last declined an attempt of it. */
  declinedAt: Date | null;
  /** When its deposit instructions (the direct wallet rail) were first handed out. */
  depositShownAt: Date | null;
  /** Money already reached its deposit address. */
  credited: boolean;
}

/** How a session is taking its link's money: through the provider, or from the customer's wallet. */
export type PayingRail = 'provider' | 'wallet';

/**
 * How long a Pay whose provider has not answered yet holds the link. The API bounds the provider's
 * answer to a few seconds and gives the claim back when Pay fails; this only frees a link whose
 * claiming process died before the provider answered.
 */
export const PAY_ANSWER_WINDOW_MS = 60_000;

/**
 * Whether the session is taking its link's money now, and on which rail; null when it is not (and
 * another session of the link may pay).
 *
 * - Ended (completed, failed, expired, canceled), or pending past its expiry: nothing more is taken.
 * - Processing: the provider is moving money.
 * - Wallet: deposit instructions were handed out, or money arrived. A wallet may send to the address at
 *   any moment until the session ends, so only the end (its expiry, the customer's Cancel) frees it.
 * - Provider: Pay was pressed and no decline came after it; until the provider answered, only for
 *   `PAY_ANSWER_WINDOW_MS`. A decline took no money and frees the link, though the session stays open.
 */
export function payingRail(s: LinkSessionFacts, now: Date): PayingRail | null {
  if (isTerminal(s.status)) return null;
  if (s.status === 'processing') return 'provider';
  if (s.expiresAt <= now) return null;
  if (s.credited || s.depositShownAt) return 'wallet';
  if (!s.payAttemptAt) return null;
  if (s.declinedAt && s.declinedAt >= s.payAttemptAt) return null;
  if (s.providerPaymentId) return 'provider';
  return now.getTime() - s.payAttemptAt.getTime() < PAY_ANSWER_WINDOW_MS ? 'provider' : null;
}

/** The first of the link's other sessions that is taking its money, if any. */
export function linkPayer<T extends LinkSessionFacts & { id: string }>(others: readonly T[], now: Date): T | undefined {
  return others.find((s) => payingRail(s, now) !== null);
}
