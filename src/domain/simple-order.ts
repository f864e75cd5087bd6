import { claimed, type ProviderClaim } from './checkout-session';
import type { DepositFact } from './deposit-fact';
import { canTransitionOrder, isOrderOpen, type SimpleOrderStatus } from './payment-status';
import type { ProviderFact } from './provider-fact';

// One simple-API order, as a pure function of its state and the next
// event, like a checkout session's (checkout-session.ts): pending → processing → settled | failed;
// pending → expired. On a network with a verifier only confirmed credits of the order's deposit
// address settle it and the provider's success is a claim; elsewhere the provider's word settles it.

export interface OrderState {
  status: SimpleOrderStatus;
  chainVerified: boolean;
  /** The first provider success on a chain-verified order, waiting for its transfer until `claimDueMs`. */
  claim: ProviderClaim | null;
  claimDueMs: number | null;
  expiresAtMs: number;
  /** A `processing` order fails when the provider has said nothing for this long. */
  processingTimeoutMs: number;
  /** When the provider's silence fails a `processing` order (its last word plus the timeout). */
  quietDueMs: number | null;
  proofTimeoutMs: number;
}

/** What a credit activity reports (activities/chain-proof-rules.ts). */
export interface OrderCreditReport {
  held: boolean;
  creditedMicro: string;
  /** G, null while it is unknown. */
  expectedMicro: string | null;
}

export type OrderEvent =
  | { kind: 'provider'; fact: ProviderFact; nowMs: number }
  | { kind: 'deposit'; fact: DepositFact }
  /** The next deadline (`nextOrderDeadline`) has passed. */
  | { kind: 'deadline'; nowMs: number }
  // Reported by effects:
  | { kind: 'credited'; credit: OrderCreditReport }
  /** The settlement the credits prove, re-checked under the order's lock: false when it was declined. */
  | { kind: 'chainSettled'; settled: boolean };

/** The order's transitions, each one idempotent write (activities/simple-orders.ts). */
export type OrderMove =
  | { to: 'processing'; fact: ProviderFact }
  | { to: 'settled'; fact: ProviderFact }
  | { to: 'failed'; fact: ProviderFact }
  | { to: 'expired' };

export type OrderEffect =
  /** The transition's write (and the run's PaymentStatus). */
  | { kind: 'move'; move: OrderMove }
  /** `transaction.settled`, once, when the order has a webhook (one attempt: docs/api.md). */
  | { kind: 'announceSettled' }
  /** Credits short of G, or a claim nothing proved, recorded as an exception. */
  | { kind: 'recordShortfall'; claim: ProviderClaim | null; at: 'claim' | 'expiry' }
  | { kind: 'credit'; fact: DepositFact }
  | { kind: 'uncredit'; fact: DepositFact }
  /** Money after the end: recorded with its log, an exception. */
  | { kind: 'recordLateDeposit'; fact: DepositFact }
  /** A provider's word after the end: flagged for an operator. */
  | { kind: 'recordLateFact'; fact: ProviderFact; status: SimpleOrderStatus }
  /** The settlement the credits prove; reports `chainSettled`. Its payout follows the run's loop. */
  | { kind: 'settleFromChain'; providerPaymentId: string | null };

export interface OrderDecision {
  state: OrderState;
  effects: OrderEffect[];
}

export function initialOrder(input: {
  chainVerified: boolean;
  expiresAtMs: number;
  proofTimeoutMs: number;
  processingTimeoutMs: number;
}): OrderState {
  return { status: 'pending', claim: null, claimDueMs: null, quietDueMs: null, ...input };
}

/** When the run must wake without a message: the expiry while pending, then the claim's proof window or the provider's silence. */
export function nextOrderDeadline(s: OrderState): number {
  if (s.status === 'pending') return s.expiresAtMs;
  const quiet = s.quietDueMs ?? Number.POSITIVE_INFINITY;
  return s.claimDueMs === null ? quiet : Math.min(quiet, s.claimDueMs);
}

export function decideOrder(current: OrderState, event: OrderEvent): OrderDecision {
  const state: OrderState = { ...current };
  const effects = decideInto(state, event);
  return { state, effects };
}

const moving = (s: OrderState, move: OrderMove): OrderEffect => {
  s.status = move.to;
  return { kind: 'move', move };
};

/** Credits short of G are the customer's money when the order ends unsettled: underpaid, recorded before the end. */
const shortfallAtEnd = (s: OrderState): OrderEffect[] =>
  s.chainVerified ? [{ kind: 'recordShortfall', claim: s.claim, at: 'expiry' }] : [];

function decideInto(s: OrderState, event: OrderEvent): OrderEffect[] {
  switch (event.kind) {
    case 'provider':
      return onProviderFact(s, event.fact, event.nowMs);
    case 'deposit':
      if (!s.chainVerified) return [];
      if (event.fact.kind === 'removed') return [{ kind: 'uncredit', fact: event.fact }];
      // Money after the end (a second payment while the payout runs, a transfer as the order expires).
      return [isOrderOpen(s.status) ? { kind: 'credit', fact: event.fact } : { kind: 'recordLateDeposit', fact: event.fact }];
    case 'credited': {
      const { credit } = event;
      if (!isOrderOpen(s.status) || !credit.held || credit.expectedMicro === null) return [];
      if (BigInt(credit.creditedMicro) < BigInt(credit.expectedMicro)) return [];
      return [{ kind: 'settleFromChain', providerPaymentId: s.claim?.providerPaymentId ?? null }];
    }
    case 'chainSettled':
      // The activity wrote the settlement itself (it may decline: a removal won under the lock).
      if (event.settled && isOrderOpen(s.status)) s.status = 'settled';
      return [];
    case 'deadline':
      return onDeadline(s, event.nowMs);
  }
}

function onDeadline(s: OrderState, nowMs: number): OrderEffect[] {
  if (!isOrderOpen(s.status) || nowMs < nextOrderDeadline(s)) return [];
  if (s.status === 'pending') return [...shortfallAtEnd(s), moving(s, { to: 'expired' })];
  if (s.claimDueMs !== null && nowMs >= s.claimDueMs) {
    // The provider's success was not credited in time: recorded once, never settled.
    s.claimDueMs = null;
    return [{ kind: 'recordShortfall', claim: s.claim, at: 'claim' }];
  }
  // The provider went quiet after `processing` (or its success was never proven): the order fails.
  const failureReason = s.claim ? 'unverified' : 'provider_timeout';
  const fact: ProviderFact = {
    eventId: `timeout:${nowMs}`,
    type: 'failed',
    providerPaymentId: '',
    failureReason,
    occurredAt: new Date(nowMs).toISOString(),
  };
  s.quietDueMs = null;
  return [...shortfallAtEnd(s), moving(s, { to: 'failed', fact })];
}

function onProviderFact(s: OrderState, fact: ProviderFact, nowMs: number): OrderEffect[] {
  if (!isOrderOpen(s.status)) return [{ kind: 'recordLateFact', fact, status: s.status }];
  s.quietDueMs = nowMs + s.processingTimeoutMs;
  if (s.chainVerified && fact.type === 'succeeded') {
    // A hint, never a settlement: processing, and a deadline for the transfer it announces.
    const effects = canTransitionOrder(s.status, 'processing') ? [moving(s, { to: 'processing', fact })] : [];
    Object.assign(s, claimed(s, fact, nowMs));
    return effects;
  }
  if (fact.type === 'processing') return canTransitionOrder(s.status, 'processing') ? [moving(s, { to: 'processing', fact })] : [];
  if (fact.type === 'succeeded') return [moving(s, { to: 'settled', fact }), { kind: 'announceSettled' }];
  // The provider's payment failed; what the chain already credited is the customer's (underpaid).
  return [...shortfallAtEnd(s), moving(s, { to: 'failed', fact })];
}
