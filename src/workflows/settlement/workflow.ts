import { ParentClosePolicy, proxyActivities, proxyLocalActivities, startChild } from '@temporalio/workflow';
import type { SettlementActivities } from '../../activities/settlement';
import type { EmittedEvent } from '../../activities/webhooks';
import { DATABASE_ACTIVITY, LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { sendPayouts } from '../checkout-session/payout';
import { webhookDelivery } from '../webhook-delivery/workflow';

export interface SettlementRunInput {
  networks: string[];
}

export interface SettlementRunOutcome {
  sweeps: number;
  payouts: number;
  failed: number;
}

const settlement = proxyActivities<Pick<SettlementActivities, 'settlementPayoutFailed'>>(DATABASE_ACTIVITY);
// The due check and the plans are short transactions in Postgres: local activities, one marker
// each in the run's history and no activity task through the server.
const local =
  proxyLocalActivities<Pick<SettlementActivities, 'settlementDue' | 'releaseHolds' | 'planSweeps' | 'planMerchantPayouts'>>(
    LOCAL_DATABASE_ACTIVITY,
  );
// Its first POSTs may each take the webhook timeout (up to a minute, ANNOUNCE_AT_ONCE at a time):
// alive by its heartbeats, bounded by a timeout no batch of them reaches.
const announcing = proxyActivities<Pick<SettlementActivities, 'announcePayoutSettled'>>({
  ...DATABASE_ACTIVITY,
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
});

/**
 * The deliveries whose first attempt (made by the activity that wrote the event) failed go on in runs
 * of their own, which outlive this one: a merchant's endpoint that is down for hours must not hold
 * the network's next settlement runs back.
 */
async function handOff(emitted: EmittedEvent): Promise<void> {
  for (const deliveryId of emitted.toRetry ?? emitted.deliveryIds) {
    try {
      await startChild(webhookDelivery, {
        workflowId: `${deliveryId}-settled`,
        args: [{ deliveryId, retry: emitted.retry, afterFirstAttempt: emitted.toRetry !== undefined }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch (err) {
      // Handed off already (the event announced again after a retry): that run owns it.
      if (!(err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError')) throw err;
    }
  }
}

/**
 * One settlement run (docs/settlement.md), started by the task queue's schedule every
 * PAYOUT_INTERVAL_SECONDS, one at a time: in each network that has something to do, the shares whose
 * hold has passed made available, the deposits of completed payments and top-ups swept into the
 * treasury, then each merchant paid what those payments owe them, `payment.settled` for each payment
 * once its payout is confirmed (its first attempts made at once, the retries handed off). Networks go
 * side by side: one chain's slow receipt never holds another's payouts. What a run leaves unfinished
 * (a worker lost, Temporal down) the next one finishes before it plans more; a payout that failed for
 * good is the merchant's balance again.
 */
export async function settlementRun(input: SettlementRunInput): Promise<SettlementRunOutcome> {
  // Most runs find nothing: one local read, and the run ends.
  const due = await local.settlementDue(input.networks);
  const outcomes = await Promise.all(due.map(settleNetwork));
  return outcomes.reduce((sum, o) => ({ sweeps: sum.sweeps + o.sweeps, payouts: sum.payouts + o.payouts, failed: sum.failed + o.failed }), {
    sweeps: 0,
    payouts: 0,
    failed: 0,
  });
}

async function settleNetwork(network: string): Promise<SettlementRunOutcome> {
  let failed = 0;
  await local.releaseHolds(network);
  const sweeps = await local.planSweeps(network);
  if (sweeps.length > 0 && !(await sendPayouts({ planned: sweeps })).settled) failed++;
  const payouts = await local.planMerchantPayouts(network);
  // Each payout on its own: one merchant's refusal never holds another's money.
  await Promise.all(
    payouts.map(async (id) => {
      if ((await sendPayouts({ planned: [id] })).settled) {
        for (const emitted of await announcing.announcePayoutSettled(id)) await handOff(emitted);
      } else {
        failed++;
        await settlement.settlementPayoutFailed(id);
      }
    }),
  );
  return { sweeps: sweeps.length, payouts: payouts.length, failed };
}
