// One payment link, as a pure function of its state and the next event: open
// until a session pays it or until its expiry. Postgres decides under the link's lock which session
// paid it (domain/arrivals.ts, through the completing session's activity); the link's run only learns it.

export type PaymentLinkStatus = 'active' | 'paid' | 'expired';

export interface LinkState {
  status: PaymentLinkStatus;
  paidSessionId: string | null;
  expiresAtMs: number;
}

export type LinkEvent =
  /** A session of the link completed and Postgres marked the link paid. */
  | { kind: 'paid'; sessionId: string }
  /** The expiry has passed (`nextLinkDeadline`). */
  | { kind: 'deadline'; nowMs: number }
  /** The merchant deactivated the link (its row already says expired): the run ends now, not at the expiry. */
  | { kind: 'deactivated' }
  /** What the conditional expiry write found: a payment whose signal was lost is never undone. */
  | { kind: 'expiryWritten'; status: PaymentLinkStatus };

/** The expiry, written only where the link is still active; reports `expiryWritten`. */
export type LinkEffect = { kind: 'expire' };

export const initialLink = (expiresAtMs: number): LinkState => ({ status: 'active', paidSessionId: null, expiresAtMs });

export const nextLinkDeadline = (s: LinkState): number => s.expiresAtMs;

export function decideLink(current: LinkState, event: LinkEvent): { state: LinkState; effects: LinkEffect[] } {
  const state = { ...current };
  if (state.status !== 'active') return { state, effects: [] };
  switch (event.kind) {
    case 'paid':
      return { state: { ...state, status: 'paid', paidSessionId: event.sessionId }, effects: [] };
    case 'deadline':
      return { state, effects: event.nowMs >= state.expiresAtMs ? [{ kind: 'expire' }] : [] };
    case 'deactivated':
      // The same conditional write as at the deadline: a link paid meanwhile stays paid.
      return { state, effects: [{ kind: 'expire' }] };
    case 'expiryWritten':
      return { state: { ...state, status: event.status }, effects: [] };
  }
}
