import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { PayoutActivities } from '../../activities/payouts';
import type { WebhookActivities } from '../../activities/webhooks';
import { DATABASE_ACTIVITY } from '../activity-options';
import { startDeliveries } from '../webhook-delivery/start';

// Decisions §11 "Payout", the orchestration: after a chain-verified completion, each payout planned,
// signed, broadcast and confirmed by its own activity, in order (the deposit address needs its gas
// before it can send). Every step stores its outcome before the next, so a worker killed anywhere
// resumes from Postgres and the same signed transaction, and never pays twice.

const payouts = proxyActivities<PayoutActivities>({
  // Short attempts: a worker that dies holding one is replaced within seconds, not minutes.
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', nonRetryableErrorTypes: ['PayoutReverted', 'PayoutImpossible'] },
});
const events = proxyActivities<WebhookActivities>(DATABASE_ACTIVITY);

export type PayoutOutcome = { settled: true } | { settled: false; reason: string };

/** Pays out a completed session; `payment.settled` once the merchant's payout is confirmed. */
export async function payOutSession(paymentId: string): Promise<PayoutOutcome> {
  try {
    const ids = await payouts.planPayouts(paymentId);
    for (const id of ids) {
      await payouts.signPayout(id);
      await payouts.broadcastPayout(id);
      await payouts.confirmPayout(id);
    }
  } catch (err) {
    // A reverted or impossible payout is for an operator (the admin view shows the row): the run
    // ends with the payment completed and unsettled rather than retrying a transfer that cannot work.
    if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return { settled: false, reason: err.cause.message };
    throw err;
  }
  await startDeliveries(await events.emitPaymentEvent(paymentId, 'completed', 'payment.settled'));
  return { settled: true };
}
