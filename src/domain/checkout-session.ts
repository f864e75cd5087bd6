import { settlementOf } from './arrivals';
import type { DepositFact } from './deposit-fact';
import { canTransition, checkoutSourcesOf, isTerminal, type CancelReason, type PaymentStatus } from './payment-status';
import type { ProviderFact } from './provider-fact';
import type { SessionMove } from './session-move';

// One checkout session, as a pure function of its state and the
// next event: what changes and what must be done (effects). The workflow feeds it messages and timers
// and runs the effects through activities (workflows/checkout-session); an effect that learns
// something (a credit's standing, a completion's outcome) reports it back as the next event. What the
// database decides under the session's lock (which token credits, whether the credits cover G, the
// link paid once) is domain/arrivals.ts, called by those activities.

/** A provider's success on a chain-verified session: a claim its transfer must prove. */
export interface ProviderClaim {
  eventId: string;
  providerPaymentId: string;
  destinationAmount?: string | undefined;
  transactionHash?: string | undefined;
}

/**
 * The first provider success on a chain-verified payment is a claim, with a deadline
 * for the transfer it announces; later successes leave it as it is.
 */
export function claimed(
  s: { claim: ProviderClaim | null; claimDueMs: number | null; proofTimeoutMs: number },
  fact: ProviderFact,
  nowMs: number,
): { claim: ProviderClaim | null; claimDueMs: number | null } {
  if (s.claim) return { claim: s.claim, claimDueMs: s.claimDueMs };
  const { eventId, providerPaymentId, destinationAmount, transactionHash } = fact;
  return { claim: { eventId, providerPaymentId, destinationAmount, transactionHash }, claimDueMs: nowMs + s.proofTimeoutMs };
}

export interface SessionState {
  status: PaymentStatus;
  /** Only a confirmed credit of the deposit address completes it; the provider's word is a claim. */
  chainVerified: boolean;
  /** The provider payment its facts named last. */
  providerPaymentId: string | null;
  /** The first provider success, waiting for its transfer until `claimDueMs`. */
  claim: ProviderClaim | null;
  claimDueMs: number | null;
  /** The own token's credits as the last credit reported them (micro units). */
  creditedMicro: bigint;
  /**
   * The provider's decline of the last attempt while nothing was under way (status still `pending`):
   * the session stays open for another attempt or the wallet, and ends `failed` with it at the
   * expiry if nothing came after it. A new attempt's processing or success clears it.
   */
  declined: ProviderFact | null;
  /** Provider successes after the end (each an exception). */
  lateEvents: number;
  expiresAtMs: number;
  /** How long a provider's success may wait for its transfer before it is `unverified`. */
  proofTimeoutMs: number;
}

/** What a credit activity reports (activities/chain-proof-rules.ts). */
export interface CreditReport {
  /** This payment holds the log (false: another payment was credited with it first). */
  held: boolean;
  creditedMicro: string;
  /** G, null while nobody chose how to pay. */
  expectedMicro: string | null;
  /** The exception this log is (wrong asset, late, duplicate), to announce. */
  exceptionId: string | null;
}

/**
 * Whether a credit's standing covers G (the rule is settlementOf's), so the same step completes the
 * session (activities: the credit and the completion it proves are one local activity).
 */
export const creditCovers = (credit: CreditReport): boolean =>
  credit.held &&
  credit.expectedMicro !== null &&
  settlementOf(BigInt(credit.expectedMicro), BigInt(credit.creditedMicro)).kind === 'covered';

/** What a completion from the chain reports: null when the credits no longer cover G (a removal won). */
export interface ChainCompletionReport {
  paidLinkId: string | null;
  /** The link was paid by another session: this money is a duplicate exception, the session stays open. */
  duplicateExceptionId?: string;
  overpaidExceptionId?: string;
  /** The completed session's provider label, null for a wallet payment. */
  provider?: string | null;
}

export interface ProviderCompletionReport {
  paidLinkId: string | null;
  duplicateExceptionId?: string;
}

export type SessionEvent =
  | { kind: 'provider'; fact: ProviderFact; nowMs: number }
  | { kind: 'deposit'; fact: DepositFact }
  | { kind: 'cancel'; reason?: CancelReason }
  /** The merchant's expire, now (POST …/expire). */
  | { kind: 'expire' }
  /** The next deadline (`nextDeadline`) has passed. */
  | { kind: 'deadline'; nowMs: number }
  // Reported by effects:
  /** `completion` is there when the credit covered G (creditCovers): what the completion it asked for did. */
  | { kind: 'credited'; credit: CreditReport; completion?: ChainCompletionReport | null }
  | { kind: 'uncredited'; creditedMicro: string }
  | { kind: 'providerCompleted'; completion: ProviderCompletionReport };

export type SessionEffect =
  /** The transition's write and its event (and the run's PaymentStatus). */
  | { kind: 'move'; move: SessionMove }
  /** Credits short of G, or a claim nothing proved, recorded as an exception (announced). */
  | { kind: 'recordShortfall'; claim: ProviderClaim | null; at: 'claim' | 'expiry' }
  /**
   * Records the log under the session's lock and, when the credits then cover G, the completion they
   * prove (re-checked under the same lock) with payment.completed, naming `providerPaymentId`; reports `credited`.
   */
  | { kind: 'credit'; fact: DepositFact; providerPaymentId: string | null }
  /** The log's block left the chain; reports `uncredited`. */
  | { kind: 'uncredit'; fact: DepositFact }
  /** Money after the end: recorded with its log, an exception (announced). */
  | { kind: 'recordLateDeposit'; fact: DepositFact }
  /** A provider's success after the end: an exception (announced). */
  | { kind: 'recordLateSuccess'; fact: ProviderFact; status: PaymentStatus }
  /** A provider-verified completion (networks without a verifier); reports `providerCompleted`. */
  | { kind: 'completeFromProvider'; fact: ProviderFact }
  | { kind: 'announceException'; exceptionId: string }
  /** The run's search attributes of a completed session. */
  | { kind: 'markCompleted'; provider?: string | null | undefined }
  /** The session paid its link: the link's other sessions end and its run is told. */
  | { kind: 'linkPaid'; linkId: string };

export interface Decision {
  state: SessionState;
  effects: SessionEffect[];
}

const CANCEL_FROM = checkoutSourcesOf('canceled');
const EXPIRE: SessionMove = { kind: 'status', to: 'expired', from: checkoutSourcesOf('expired') };

export function initialSession(input: { chainVerified: boolean; expiresAtMs: number; proofTimeoutMs: number }): SessionState {
  return {
    status: 'pending',
    providerPaymentId: null,
    claim: null,
    claimDueMs: null,
    creditedMicro: 0n,
    declined: null,
    lateEvents: 0,
    ...input,
  };
}

/** When the run must wake without a message: the claim's deadline or the expiry, whichever is first. */
export const nextDeadline = (s: SessionState): number => (s.claimDueMs === null ? s.expiresAtMs : Math.min(s.expiresAtMs, s.claimDueMs));

const moving = (state: SessionState, move: SessionMove): SessionEffect => {
  state.status = move.kind === 'status' ? move.to : move.kind === 'announce' ? move.status : move.kind;
  return { kind: 'move', move };
};

/** Part of G already credited is the customer's money when the session ends unpaid: underpaid, recorded before the end. */
const shortfallAtEnd = (s: SessionState): SessionEffect[] =>
  s.chainVerified && s.creditedMicro > 0n ? [{ kind: 'recordShortfall', claim: s.claim, at: 'expiry' }] : [];

export function decide(current: SessionState, event: SessionEvent): Decision {
  const state: SessionState = { ...current };
  const effects = decideInto(state, event);
  return { state, effects };
}

function decideInto(s: SessionState, event: SessionEvent): SessionEffect[] {
  switch (event.kind) {
    case 'cancel': {
      if (!canTransition(s.status, 'canceled')) return [];
      const shortfall = shortfallAtEnd(s);
      return [
        ...shortfall,
        moving(s, { kind: 'status', to: 'canceled', from: CANCEL_FROM, ...(event.reason ? { reason: event.reason } : {}) }),
      ];
    }
    case 'expire':
      if (s.status !== 'pending') return [];
      return [...(s.chainVerified ? [{ kind: 'recordShortfall', claim: s.claim, at: 'expiry' } as const] : []), moving(s, EXPIRE)];
    case 'deadline':
      if (isTerminal(s.status)) return [];
      if (s.claimDueMs !== null && event.nowMs >= s.claimDueMs && event.nowMs < s.expiresAtMs) {
        // The provider's success was not credited in time: recorded once, never completed.
        s.claimDueMs = null;
        return [{ kind: 'recordShortfall', claim: s.claim, at: 'claim' }];
      }
      if (event.nowMs < s.expiresAtMs) return [];
      // Declined and never tried again nor paid: the attempt's failure is how it ended (payment.failed).
      if (s.declined && s.status === 'pending' && s.creditedMicro === 0n) return [moving(s, { kind: 'failed', fact: s.declined })];
      return [...(s.chainVerified ? [{ kind: 'recordShortfall', claim: s.claim, at: 'expiry' } as const] : []), moving(s, EXPIRE)];
    case 'provider':
      return onProviderFact(s, event.fact, event.nowMs);
    case 'deposit':
      if (!s.chainVerified) return [];
      if (event.fact.kind === 'removed') return [{ kind: 'uncredit', fact: event.fact }];
      // Money after the end: recorded with its log as an exception (late or duplicate).
      if (isTerminal(s.status)) return [{ kind: 'recordLateDeposit', fact: event.fact }];
      // The completion, if this credit covers G, names the provider payment its claim (or facts) named.
      return [{ kind: 'credit', fact: event.fact, providerPaymentId: s.claim?.providerPaymentId ?? s.providerPaymentId }];
    case 'credited': {
      const { credit, completion } = event;
      s.creditedMicro = BigInt(credit.creditedMicro);
      // Not this payment's money (another token): the merchant is told, nothing credits.
      const told: SessionEffect[] = credit.exceptionId ? [{ kind: 'announceException', exceptionId: credit.exceptionId }] : [];
      // Only a credit that covered G brings a completion (the activity re-checked it under the lock and
      // may have declined: null); only one this session could ask for counts: chain-verified, still open.
      if (!completion || !creditCovers(credit) || !s.chainVerified || isTerminal(s.status)) return told;
      if (completion.duplicateExceptionId) return [...told, { kind: 'announceException', exceptionId: completion.duplicateExceptionId }];
      s.status = 'completed';
      return [
        ...told,
        { kind: 'markCompleted', provider: completion.provider },
        ...(completion.overpaidExceptionId ? [{ kind: 'announceException', exceptionId: completion.overpaidExceptionId } as const] : []),
        ...(completion.paidLinkId ? [{ kind: 'linkPaid', linkId: completion.paidLinkId } as const] : []),
      ];
    }
    case 'uncredited':
      s.creditedMicro = BigInt(event.creditedMicro);
      return [];
    case 'providerCompleted': {
      const { completion } = event;
      // Never on a chain-verified session: only the chain completes it.
      if (s.chainVerified || isTerminal(s.status)) return [];
      if (completion.duplicateExceptionId) return [{ kind: 'announceException', exceptionId: completion.duplicateExceptionId }];
      return [
        moving(s, { kind: 'announce', status: 'completed' }),
        ...(completion.paidLinkId ? [{ kind: 'linkPaid', linkId: completion.paidLinkId } as const] : []),
      ];
    }
  }
}

function onProviderFact(s: SessionState, fact: ProviderFact, nowMs: number): SessionEffect[] {
  if (!isTerminal(s.status)) {
    s.providerPaymentId = fact.providerPaymentId;
    s.declined = fact.type === 'failed' ? s.declined : null;
  }
  if (s.chainVerified && fact.type === 'succeeded' && !isTerminal(s.status)) {
    // A hint, never a completion: processing, and a deadline for the transfer it announces.
    const effects: SessionEffect[] = canTransition(s.status, 'processing') ? [moving(s, { kind: 'processing', fact })] : [];
    Object.assign(s, claimed(s, fact, nowMs));
    return effects;
  }
  if (isTerminal(s.status)) {
    // A success after the session ended is money that arrived (or a claim of it): recorded, never dropped.
    if (fact.type !== 'succeeded' || s.status === 'completed') return [];
    s.lateEvents++;
    return [{ kind: 'recordLateSuccess', fact, status: s.status }];
  }
  if (fact.type === 'processing') return canTransition(s.status, 'processing') ? [moving(s, { kind: 'processing', fact })] : [];
  if (fact.type === 'succeeded') return [{ kind: 'completeFromProvider', fact }];
  if (s.status === 'pending') {
    // A decline before anything was under way took no money: the customer may try again, with the
    // provider or from a wallet, on this session. Nothing is written; the page reads the
    // decline from the provider's recorded event, and the expiry ends the session as failed.
    s.declined = fact;
    return [];
  }
  // The provider's payment failed once under way; what the chain already credited is the customer's (underpaid).
  return [...shortfallAtEnd(s), moving(s, { kind: 'failed', fact })];
}
