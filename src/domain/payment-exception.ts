// One exception (money outside the happy path), as a pure function of its state and
// the next event: open until an operator accepts it (the payment is completed with it and its money
// joins the merchant's balance)
// or refunds it (the money goes back on chain); a refund whose transfer failed leaves it open for
// another decision. What may be accepted or refunded, and how much, is decided under the exception's
// lock by the activities (domain/refund-address.ts, domain/ledger.ts).

export type ExceptionOutcome = 'open' | 'accepted' | 'refunded';

export interface ExceptionState {
  outcome: ExceptionOutcome;
  /** The payouts of a planned refund, sent by the run. */
  refundDue: string[] | null;
  /** The payment link an acceptance paid, whose other sessions the run ends (not inside the operator's call). */
  linkDue: { paymentId: string; linkId: string } | null;
}

/** What the acceptance's activity reports. */
export interface AcceptReport {
  paymentId: string;
  paymentStatus: string;
  /** The acceptance completed the payment now. */
  completedNow: boolean;
  /** The payment link the acceptance paid: its other sessions end, as when a session of it completes. */
  paidLinkId: string | null;
}

export type ExceptionEvent =
  /** The outcome Postgres holds when the run starts (a run started again for a resolved exception). */
  | { kind: 'loaded'; outcome: ExceptionOutcome }
  | { kind: 'accepted'; accepted: AcceptReport }
  | { kind: 'refundPlanned'; payoutIds: string[] }
  /** The run's turn to do what is due (after the operator's call has answered). */
  | { kind: 'resume' }
  // Reported by effects:
  | { kind: 'refundSent'; settled: true }
  | { kind: 'refundSent'; settled: false; reason: string };

export type ExceptionEffect =
  /** The run's PaymentStatus search attribute (the payment's own run has usually closed). */
  | { kind: 'markPaymentStatus'; status: string }
  /** `payment.completed`, idempotent per payment. */
  | { kind: 'announceCompleted'; paymentId: string }
  /** The refund's transfers; reports `refundSent`. */
  | { kind: 'sendRefund'; payoutIds: string[] }
  /** The transfer back failed: recorded on its payouts; the exception stays open. */
  | { kind: 'refundNotSent'; payoutIds: string[]; reason: string }
  /** The accepted payment paid its link: the link's other sessions end (canceled, `link_paid`) and its run is told. */
  | { kind: 'linkPaid'; paymentId: string; linkId: string };

export const initialException = (): ExceptionState => ({ outcome: 'open', refundDue: null, linkDue: null });

/** Nothing is left for the run to do but wait for an operator (open) or end (resolved). */
export const nothingDue = (s: ExceptionState): boolean => s.refundDue === null && s.linkDue === null;

export function decideException(current: ExceptionState, event: ExceptionEvent): { state: ExceptionState; effects: ExceptionEffect[] } {
  const s: ExceptionState = { ...current };
  switch (event.kind) {
    case 'loaded':
      if (event.outcome !== 'open') s.outcome = event.outcome;
      return { state: s, effects: [] };
    case 'accepted': {
      if (s.outcome !== 'open') return { state: s, effects: [] };
      const { accepted } = event;
      s.outcome = 'accepted';
      const effects: ExceptionEffect[] = [];
      // Every run that accepts carries the status, the first or one started later (whose start set none).
      effects.push({ kind: 'markPaymentStatus', status: accepted.paymentStatus });
      if (accepted.completedNow || accepted.paymentStatus === 'completed')
        effects.push({ kind: 'announceCompleted', paymentId: accepted.paymentId });
      if (accepted.paidLinkId) s.linkDue = { paymentId: accepted.paymentId, linkId: accepted.paidLinkId };
      return { state: s, effects };
    }
    case 'refundPlanned':
      if (s.outcome === 'open') s.refundDue = event.payoutIds;
      return { state: s, effects: [] };
    case 'resume':
      if (s.linkDue) {
        const linkPaid: ExceptionEffect = { kind: 'linkPaid', ...s.linkDue };
        s.linkDue = null;
        return { state: s, effects: [linkPaid] };
      }
      if (s.refundDue) return { state: s, effects: [{ kind: 'sendRefund', payoutIds: s.refundDue }] };
      return { state: s, effects: [] };
    case 'refundSent': {
      const payoutIds = s.refundDue ?? [];
      s.refundDue = null;
      if (event.settled) {
        s.outcome = 'refunded';
        return { state: s, effects: [] };
      }
      return { state: s, effects: [{ kind: 'refundNotSent', payoutIds, reason: event.reason }] };
    }
  }
}
