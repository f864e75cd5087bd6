import type { DatabaseOrTransaction } from '../client';
import { flagForReview } from './checkout-sessions';
import { setProviderEventState } from './provider-events';

/**
 * Money reported after the session ended (decisions §6): the session is flagged for an operator and
 * the provider event marked late. Used by the workflow's activity and by the callback route when
 * the workflow has already closed.
 */
export async function recordLateSuccess(
  db: DatabaseOrTransaction,
  input: { paymentId: string; provider: string; eventId: string; status: string; summary: string; at: Date },
): Promise<void> {
  await flagForReview(
    db,
    input.paymentId,
    'late_success',
    `Provider reported success (event ${input.eventId}: ${input.summary}) at ${input.at.toISOString()} after the session was ${input.status}.`,
  );
  await setProviderEventState(db, { provider: input.provider, eventId: input.eventId }, 'late', `session was ${input.status}`);
}
