import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { CancelReason, PaymentStatus } from '../domain/payment-status';
import { cancelUpdate } from '../workflows/checkout-session/messages';

/**
 * Asks a checkout session's run to cancel through its Cancel (the same update as the hosted page's
 * button), with a reason; what the provider-closing activities are handed (ActivityDeps.cancelSession).
 * Answers the status the session ended in, or null when the run no longer takes a cancel (it moved
 * on, ended, or never started): there is then nothing open to end.
 */
export type SessionCanceller = (paymentId: string, reason: CancelReason) => Promise<PaymentStatus | null>;

export function createSessionCanceller(client: Client): SessionCanceller {
  return async (paymentId, reason) => {
    try {
      return await client.workflow.getHandle(paymentId).executeUpdate(cancelUpdate, { args: [{ reason }] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  };
}
