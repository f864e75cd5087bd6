import type { PaymentStatus } from '../domain/payment-status';
import type { ProviderFact } from '../domain/provider-fact';
import type { ChainProofActivities } from './chain-proof';
import type { CheckoutActivities } from './checkout-session';
import type { DeliverOption, EmittedEvent, WebhookActivities } from './webhooks';

/** A checkout session's transition whose write the workflow decides: the write, then its event. */
export type SessionMove =
  | { kind: 'status'; to: 'canceled' | 'expired'; from: readonly PaymentStatus[] }
  | { kind: 'processing'; fact: ProviderFact }
  | { kind: 'failed'; fact: ProviderFact }
  /** Written already (a provider completion, whose activity may decline): the event only. */
  | { kind: 'announce'; status: PaymentStatus };

export type ChainCompletion = NonNullable<Awaited<ReturnType<ChainProofActivities['recordChainCompletion']>>>;

const statusOf = (move: SessionMove): PaymentStatus => (move.kind === 'status' ? move.to : move.kind === 'announce' ? move.status : move.kind);

/**
 * Issue 14: a transition's write and its event in one activity, so a session's run records one local
 * activity per transition rather than two (a marker, an activation and a round trip through the
 * worker's core less each). Not one database transaction: both halves are idempotent, so a retry
 * after the write finds it done and writes the event (the same one, if it got that far).
 */
export function createSessionTransitionActivities(parts: { checkout: CheckoutActivities; proof: ChainProofActivities; webhooks: WebhookActivities }) {
  const { checkout, proof, webhooks } = parts;
  return {
    async moveSession(paymentId: string, move: SessionMove, options?: DeliverOption): Promise<EmittedEvent> {
      if (move.kind === 'status') await checkout.recordStatusChange(paymentId, move.from, move.to);
      else if (move.kind === 'processing') await checkout.recordProcessing(paymentId, move.fact);
      else if (move.kind === 'failed') await checkout.recordFailure(paymentId, move.fact);
      return webhooks.emitPaymentEvent(paymentId, statusOf(move), null, options);
    },

    /**
     * recordChainCompletion, and `payment.completed` when it completed the session (not when it
     * declined, nor for a duplicate, which is an exception's to announce).
     */
    async completeSessionFromChain(paymentId: string, providerPaymentId: string | null, options?: DeliverOption): Promise<(ChainCompletion & { emitted?: EmittedEvent }) | null> {
      const completion = await proof.recordChainCompletion(paymentId, providerPaymentId);
      if (!completion || completion.duplicateExceptionId) return completion;
      return { ...completion, emitted: await webhooks.emitPaymentEvent(paymentId, 'completed', null, options) };
    },
  };
}

export type SessionTransitionActivities = ReturnType<typeof createSessionTransitionActivities>;
