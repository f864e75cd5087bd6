import { getExternalWorkflowHandle, log, proxyActivities } from '@temporalio/workflow';
import type { ProviderClosingActivities } from '../activities/provider-closing';
import { linkPaidSignal } from './payment-link/messages';

// Closing a provider payment is worth retrying for a while, never worth failing the
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

/** Once the session ended unpaid, or its link was paid, nobody may pay what it opened. */
export async function closeProviderPayments(paymentId: string, linkId: string | null): Promise<void> {
  try {
    if (linkId) await closing.closeLinkSiblings(linkId, paymentId);
    else await closing.closeSessionProviderPayment(paymentId);
  } catch (err) {
    log.warn('provider payment not closed', { paymentId, error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * A session paid its link (its completion, or an operator's acceptance of its late money): the
 * link's other sessions end and their provider payments close, and the link's run ends now rather
 * than at its expiry (Postgres already says paid; a run that ended already hears nothing).
 */
export async function announceLinkPaid(paymentId: string, linkId: string): Promise<void> {
  await closeProviderPayments(paymentId, linkId);
  await getExternalWorkflowHandle(linkId)
    .signal(linkPaidSignal, { sessionId: paymentId })
    .catch(() => undefined);
}
