import type { CancelReason, PaymentStatus } from './payment-status';
import type { ProviderFact } from './provider-fact';

/** A checkout session's transition as the workflow decides it: what to write, and so which event follows. */
export type SessionMove =
  /** `reason` says why a cancel happened (absent: the customer's, as every cancel before reasons). */
  | { kind: 'status'; to: 'canceled' | 'expired'; from: readonly PaymentStatus[]; reason?: CancelReason }
  | { kind: 'processing'; fact: ProviderFact }
  | { kind: 'failed'; fact: ProviderFact }
  /** Written already (a provider completion, whose activity may decline): the event only. */
  | { kind: 'announce'; status: PaymentStatus };

/** The status a move leads to, and the event's. */
export const statusAfter = (move: SessionMove): PaymentStatus =>
  move.kind === 'status' ? move.to : move.kind === 'announce' ? move.status : move.kind;
