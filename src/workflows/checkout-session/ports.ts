import {
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ChainProofActivities } from '../../activities/chain-proof';
import type { CheckoutActivities } from '../../activities/checkout-session';
import type { ProviderClosingActivities } from '../../activities/provider-closing';
import type { SessionTransitionActivities } from '../../activities/session-transitions';
import type { WebhookActivities } from '../../activities/webhooks';
import type { PaymentStatus } from '../../domain/payment-status';
import { LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { linkPaidSignal } from '../payment-link/messages';
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
// Closing a provider payment (decisions §12) is worth retrying for a while, never worth failing the
// session for: a payment the provider still takes arrives as money and becomes an exception.
const closing = proxyActivities<ProviderClosingActivities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 12,
    nonRetryableErrorTypes: ['ProviderRejected'],
  },
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
    linkPaid: async (linkId) => {
      await closeProviderPayments(id, linkId);
      // Ends the link's run now rather than at its expiry; Postgres already says paid.
      await getExternalWorkflowHandle(linkId)
        .signal(linkPaidSignal, { sessionId: id })
        .catch(() => undefined);
    },
  };
}

/**
 * Decisions §12: the exception's own workflow tells the merchant and waits for an operator; it
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

/** Decisions §12: once the session ended unpaid, or its link was paid, nobody may pay what it opened. */
export async function closeProviderPayments(paymentId: string, linkId: string | null): Promise<void> {
  try {
    if (linkId) await closing.closeLinkSiblings(linkId, paymentId);
    else await closing.closeSessionProviderPayment(paymentId);
  } catch (err) {
    log.warn('provider payment not closed', { paymentId, error: err instanceof Error ? err.message : String(err) });
  }
}
