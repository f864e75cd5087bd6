import { ParentClosePolicy, proxyLocalActivities, startChild, upsertSearchAttributes, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ChainProofActivities } from '../../activities/chain-proof';
import type { CheckoutActivities } from '../../activities/checkout-session';
import type { SessionTransitionActivities } from '../../activities/session-transitions';
import type { WebhookActivities } from '../../activities/webhooks';
import type { PaymentStatus } from '../../domain/payment-status';
import { LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { announceLinkPaid } from '../closing';
import { PAYMENT_EXCEPTION_WORKFLOW, type PaymentExceptionInput } from '../payment-exception/messages';
import { completedAttributes, PaymentStatusKey } from '../search-attributes';
import { emitAndDeliver, type InRunDeliveries } from '../webhook-delivery/start';
import type { SessionPorts } from './session-loop';

// How a session's run does what its rules decide. Its database writes are local activities
// (activity-options.ts); a transition's write and its event are one of them (activities/session-transitions.ts).
export const sessionRecords = proxyLocalActivities<
  SessionTransitionActivities & CheckoutActivities & WebhookActivities & ChainProofActivities
>(LOCAL_DATABASE_ACTIVITY);
// The writes that emit an event also make its first delivery attempts (activities/webhooks.ts,
// withFirstAttempts): bounded like a delivery attempt (WEBHOOK_TIMEOUT_MS, 10 s, plus the database).
export const emittingRecords = proxyLocalActivities<SessionTransitionActivities>({
  ...LOCAL_DATABASE_ACTIVITY,
  startToCloseTimeout: '30 seconds',
});
export interface SessionRun {
  paymentId: string;
  deliveries: InRunDeliveries;
  /** The status the rules just decided (the run's search attribute follows it). */
  status(): PaymentStatus;
}

export function sessionPorts(run: SessionRun): SessionPorts {
  const id = run.paymentId;
  const db = sessionRecords;
  return {
    move: async ({ move }) => {
      await emitAndDeliver(() => emittingRecords.moveSession(id, move), run.deliveries);
      upsertSearchAttributes([{ key: PaymentStatusKey, value: run.status() }]);
    },
    recordShortfall: async ({ claim, at }) => (await db.recordShortfall(id, claim, at))?.exceptionId ?? null,
    credit: async ({ fact, providerPaymentId }) => {
      const report = await emittingRecords.creditSession(id, fact, providerPaymentId);
      await emitAndDeliver(async () => report.completion?.emitted ?? null, run.deliveries);
      return report;
    },
    uncredit: async ({ fact }) => (await db.uncreditDeposit(id, fact)).creditedMicro,
    recordLateDeposit: ({ fact }) => db.recordLateDeposit(id, fact),
    recordLateSuccess: ({ fact, status }) => db.flagLateSuccess(id, fact, status),
    completeFromProvider: ({ fact }) => db.recordCompletion(id, fact),
    announceException: (exceptionId) => announceException(run, exceptionId),
    markCompleted: async (completion) => upsertSearchAttributes(completedAttributes(completion)),
    linkPaid: (linkId) => announceLinkPaid(id, linkId),
  };
}

/**
 * The exception's own workflow tells the merchant and waits for an operator; it
 * outlives this run (money may be resolved long after the session ended). The one start of an
 * exception's run outside `recordException` (payments/exception-runs.ts): inside a workflow a start
 * must be a workflow command. Same id (the exception's) and reuse policy, so either start finds the other's run.
 */
async function announceException(run: SessionRun, exceptionId: string): Promise<void> {
  const args: [PaymentExceptionInput] = [{ exceptionId, paymentId: run.paymentId }];
  await startChild(PAYMENT_EXCEPTION_WORKFLOW, {
    workflowId: exceptionId,
    args,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
  }).catch((err: unknown) => {
    // The same exception announced again (a second report of one arrival): its run already exists.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  });
}
