import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { PaymentRefundActivities } from '../../activities/payment-refunds';
import type { WebhookActivities } from '../../activities/webhooks';
import { REFUND_ADDRESS_REFUSED } from '../../domain/refund-address';
import { LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { retryRequested, sendPayouts, type PayoutOutcome } from '../checkout-session/payout';
import { emitAndDeliver, inRunDeliveries } from '../webhook-delivery/start';
import {
  requestRefundUpdate,
  type PaymentRefundInput,
  type PaymentRefundOutcome,
  type RefundRequest,
  type RefundStanding,
} from './messages';

const records = proxyLocalActivities<PaymentRefundActivities>(LOCAL_DATABASE_ACTIVITY);
const events = proxyLocalActivities<WebhookActivities>(LOCAL_DATABASE_ACTIVITY);
// The plan reads Postgres and checks the address: a bounded number of short attempts; a reason no
// retry fixes fails it at once.
const planning = proxyActivities<PaymentRefundActivities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['RefundNotSendable', 'PayoutImpossible', REFUND_ADDRESS_REFUSED],
  },
});

const REQUEST_WAIT_MS = 60_000;

/**
 * One refund of a completed payment, workflow id = refund id. The run comes first: the API starts it
 * with its request (update-with-start), and the run records the refund itself (the checks, the draw
 * on the merchant's balance, the row, in one transaction), so no refund row exists without its run
 * and nothing has to start runs later. A refused request ends the run with nothing written. Then
 * its payout is planned (one row, keyed by the refund) and sent from the treasury by the payout
 * machinery, exactly once; `payment.refunded` once its transfer is confirmed. A transfer that fails
 * for good makes the refund `failed` with the reason and waits, like a failed settlement, for an
 * operator's retry (POST /admin/v1/payouts/{id}/retry).
 */
export async function paymentRefund(input: PaymentRefundInput): Promise<PaymentRefundOutcome> {
  const standing = await recordedRequest(input);
  if (standing === null) return 'refused';
  if (standing === 'refunded') {
    await condition(allHandlersFinished);
    return 'refunded';
  }
  const deliveries = inRunDeliveries(events.markDeliveryFailed);
  let outcome: PayoutOutcome;
  for (;;) {
    try {
      const plan = await planning.planPaymentRefund(input.refundId);
      outcome = await sendPayouts({ planned: plan.payoutIds });
    } catch (err) {
      if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure)) throw err;
      outcome = { settled: false, reason: err.cause.message };
    }
    if (outcome.settled) break;
    await records.paymentRefundNotSent(input.refundId, outcome.reason);
    if (!(await retryRequested(input.paymentId, () => records.reopenRefund(input.refundId)))) break;
  }
  if (outcome.settled) await emitAndDeliver(() => events.emitRefundEvent(input.refundId), deliveries);
  // The same request again (a double click) is answered with its row until the run ends.
  await condition(() => deliveries.done() && allHandlersFinished());
  return outcome.settled ? 'refunded' : 'failed';
}

/**
 * The run's first step: its request recorded (or found recorded: the same request again, or a run
 * started again after one that was cut short), or refused. A request the server admitted with the
 * start but lost before the workflow took it never arrives: after the wait, the run reads its row,
 * and goes on with it if the request was recorded after all. Requests in flight finish before the
 * run decides, so none is dropped half done; later ones (the same request again) are answered from
 * the row for as long as the run lives, unless it ends with nothing recorded.
 */
async function recordedRequest(input: PaymentRefundInput): Promise<RefundStanding | null> {
  let standing: RefundStanding | null | undefined;
  let refused = false;
  let closed = false;
  setHandler(
    requestRefundUpdate,
    async (request) => {
      try {
        const recorded = await records.recordPaymentRefund(input.refundId, request);
        standing ??= recorded.standing;
        return recorded;
      } catch (err) {
        refused = true;
        throw err;
      }
    },
    {
      // Once the run has decided to end with nothing recorded, no request may record one.
      validator: (_request: RefundRequest) => {
        if (closed && !standing) throw ApplicationFailure.nonRetryable('This refund was refused; ask again for a new one.', 'Conflict');
      },
    },
  );
  const answered = await condition(() => standing !== undefined || refused, input.requestWaitMs ?? REQUEST_WAIT_MS);
  closed = true;
  await condition(allHandlersFinished);
  if (standing !== undefined) return standing;
  if (answered) return (standing = null);
  return (standing = await records.refundStanding(input.refundId));
}
