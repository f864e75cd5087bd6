import { ActivityFailure, ApplicationFailure, condition, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { PaymentRefundActivities } from '../../activities/payment-refunds';
import type { WebhookActivities } from '../../activities/webhooks';
import { REFUND_ADDRESS_REFUSED } from '../../domain/refund-address';
import { LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { retryRequested, sendPayouts, type PayoutOutcome } from '../checkout-session/payout';
import { emitAndDeliver, inRunDeliveries } from '../webhook-delivery/start';
import type { PaymentRefundInput, PaymentRefundOutcome } from './messages';

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

/**
 * One refund of a completed payment, workflow id = refund id: its payout planned
 * (one row, keyed by the refund) and sent from the treasury by the payout machinery, exactly once;
 * `payment.refunded` once its transfer is confirmed (the ledger and the refund's row were written
 * with the confirmation). A transfer that fails for good makes the refund `failed` with the reason
 * and waits, like a failed settlement, for an operator's retry (POST /admin/v1/payouts/{id}/retry).
 */
export async function paymentRefund(input: PaymentRefundInput): Promise<PaymentRefundOutcome> {
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
  await condition(() => deliveries.done());
  return outcome.settled ? 'refunded' : 'failed';
}
