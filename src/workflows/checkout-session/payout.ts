import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { PayoutActivities, PayoutBatch } from '../../activities/payouts';
import type { WebhookActivities } from '../../activities/webhooks';
import { payoutTaskQueue } from '../../domain/task-queues';
import { LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { emitAndDeliver, type InRunDeliveries } from '../webhook-delivery/start';
import { retryPayoutUpdate } from './messages';

// Payouts, the orchestration (docs/settlement.md): one activity takes a batch's payouts (a settlement
// run's, a refund's, a simple order's) through their steps (planned, then each signed, broadcast and
// confirmed in order). Every step stores its outcome before the next, so a worker killed anywhere
// resumes from Postgres and the same signed transaction, and never pays twice.

export const PAYOUT_ACTIVITY: ActivityOptions = {
  // Short attempts: a worker that dies holding one is replaced within seconds, not minutes: the
  // attempt heartbeats at each step and each poll for a receipt, so a lost worker is noticed after
  // the heartbeat timeout, well before the attempt's own. The attempt's own covers its receipt watch
  // (8 s) with room to spare.
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: ['PayoutReverted', 'PayoutImpossible'],
  },
};
const reopening = proxyLocalActivities<PayoutActivities>(LOCAL_DATABASE_ACTIVITY);
const events = proxyLocalActivities<WebhookActivities>(LOCAL_DATABASE_ACTIVITY);

export type PayoutOutcome = { settled: true } | { settled: false; reason: string };

/**
 * Sends a batch's payouts in order, each signed, broadcast and confirmed. A reverted or impossible
 * payout is for an operator (the admin view shows the row): the outcome says so rather than retrying
 * a transfer that cannot work. `afterLastBroadcast` runs once the last transfer is broadcast.
 */
export async function sendPayouts(batch: PayoutBatch, afterLastBroadcast?: () => Promise<void>): Promise<PayoutOutcome> {
  // On the payouts' own queue (domain/task-queues.ts).
  const sender = proxyActivities<PayoutActivities>({ ...PAYOUT_ACTIVITY, taskQueue: payoutTaskQueue(workflowInfo().taskQueue) });
  try {
    if (afterLastBroadcast) {
      await sender.sendPayouts(batch, 'broadcast');
      await afterLastBroadcast();
    }
    await sender.sendPayouts(batch, 'confirmed');
    return { settled: true };
  } catch (err) {
    if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return { settled: false, reason: err.cause.message };
    throw err;
  }
}

/**
 * How long a run whose payout failed waits for an operator's retry. Long, as fixing
 * the cause (funding an address, a token's freeze lifted) may take days; bounded, so a run nobody
 * attends to ends. The failed rows stay failed and listed after it (GET /admin/v1/payouts?status=failed).
 */
const RETRY_WINDOW_MS = 30 * 24 * 3600 * 1000;

/**
 * After a failed payout: waits, within the window, for POST /admin/v1/payouts/{id}/retry. The retry is
 * an update this run accepts only while it waits; its handler reopens the failed rows (a local
 * activity) before it answers, so the operator's call returns once the run has taken the retry on.
 * Returns whether a retry came. A run that is not waiting has no handler: the update is refused.
 * `reopen` is what the retry reopens: by default the payment's failed payouts.
 */
export async function retryRequested(
  paymentId: string,
  reopen: () => Promise<unknown> = () => reopening.reopenPayouts(paymentId),
): Promise<boolean> {
  let retried = false;
  let lapsed = false;
  setHandler(retryPayoutUpdate, async () => {
    if (!retried) await reopen();
    retried = true;
  });
  const window = new CancellationScope();
  void window
    .run(() => sleep(RETRY_WINDOW_MS))
    .then(
      () => void (lapsed = true),
      (err: unknown) => {
        if (!isCancellation(err)) throw err;
      },
    );
  await condition(() => retried || lapsed);
  setHandler(retryPayoutUpdate, undefined);
  if (!lapsed) window.cancel();
  return retried;
}

/** An exception's planned refund sent back on chain; `payment.refunded` once it is confirmed. */
export async function refundOnChain(exceptionId: string, payoutIds: string[], deliveries: InRunDeliveries): Promise<PayoutOutcome> {
  const outcome = await sendPayouts({ planned: payoutIds });
  if (outcome.settled) await emitAndDeliver(() => events.emitExceptionEvent(exceptionId, 'payment.refunded'), deliveries);
  return outcome;
}

/**
 * A settled chain-verified simple order's payout to the customer's wallet.
 * `dispatched` runs once the transfer is broadcast (the order says payout_dispatched then), or once
 * the payout failed, so transaction.settled is sent exactly once either way. A failed payout waits
 * for an operator's retry, as a session's does.
 */
export async function payOutOrder(code: string, dispatched: () => Promise<void>): Promise<PayoutOutcome> {
  let told = false;
  const tell = async () => {
    if (told) return;
    told = true;
    await dispatched();
  };
  for (;;) {
    const outcome = await sendPayouts({ order: code }, tell);
    await tell();
    if (outcome.settled || !(await retryRequested(code))) return outcome;
  }
}
