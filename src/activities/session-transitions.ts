import { paymentLabels } from '../domain/payment-labels';
import type { PaymentStatus } from '../domain/payment-status';
import type { CreditReport } from '../domain/checkout-session';
import type { SessionEventContext } from '../db/queries/checkout-session-events';
import type { DepositFact } from '../domain/deposit-fact';
import { statusAfter, type SessionMove } from '../domain/session-move';
import type { ChainProofActivities } from './chain-proof';
import type { CheckoutActivities } from './checkout-session';
import type { EmittedEvent, WebhookEvents } from './webhooks';

/**
 * `provider`: the completed session's provider label, null for a wallet payment, for
 * the run's `Provider` search attribute; absent from results recorded before it was returned.
 */
export type ChainCompletion = NonNullable<Awaited<ReturnType<ChainProofActivities['creditDeposit']>>['completion']> & {
  provider?: string | null;
};

/**
 * A transition's write and its event in one activity, so a session's run records one local
 * activity per transition rather than two (a marker, an activation and a round trip through the
 * worker's core less each). Not one database transaction: both halves are idempotent, so a retry
 * after the write finds it done and writes the event (the same one, if it got that far).
 * the event's first delivery attempts are made here too (withFirstAttempts), not in a local activity
 * of their own.
 */
export function createSessionTransitionActivities(parts: {
  checkout: CheckoutActivities;
  proof: ChainProofActivities;
  webhooks: WebhookEvents;
}) {
  const { checkout, proof, webhooks } = parts;
  // The event, and its deliveries' first attempts on the rows its write holds (nothing read twice).
  // `context`: the session as its move's write returned it; read again when absent (a retry, whose write found the move made).
  const emit = async (paymentId: string, status: PaymentStatus, context?: SessionEventContext | null) =>
    webhooks.emitPaymentEventWithFirstAttempts(paymentId, status, null, context ?? undefined);
  const withoutTransaction = (moved: Omit<SessionEventContext, 'transaction'> | null) => moved && { ...moved, transaction: null };
  return {
    async moveSession(paymentId: string, move: SessionMove): Promise<EmittedEvent> {
      const moved =
        move.kind === 'status'
          ? await checkout.recordStatusChange(paymentId, move.from, move.to, move.reason)
          : move.kind === 'processing'
            ? await checkout.recordProcessing(paymentId, move.fact)
            : move.kind === 'failed'
              ? await checkout.recordFailure(paymentId, move.fact)
              : null;
      return (await emit(paymentId, statusAfter(move), withoutTransaction(moved))).emitted;
    },

    /**
     * A confirmed log credited, and when the credits cover G the completion it proves (creditDeposit),
     * with `payment.completed` when it completed the session (not when it declined, nor for a
     * duplicate, which is an exception's to announce): one local activity for both.
     */
    async creditSession(
      paymentId: string,
      fact: DepositFact,
      providerPaymentId: string | null,
    ): Promise<{ credit: CreditReport; completion?: (ChainCompletion & { emitted?: EmittedEvent }) | null }> {
      const { credit, completion: done } = await proof.creditDeposit(paymentId, fact, providerPaymentId);
      if (!done) return { credit, completion: done };
      // The completion's rows go to its event, never into the run's history.
      const { event, ...completion } = done;
      if (completion.duplicateExceptionId) return { credit, completion };
      // The event's session, as the completion wrote it, names the provider label.
      const { emitted, session } = await emit(paymentId, 'completed', event);
      return { credit, completion: { ...completion, emitted, provider: paymentLabels(session).provider } };
    },
  };
}

export type SessionTransitionActivities = ReturnType<typeof createSessionTransitionActivities>;
