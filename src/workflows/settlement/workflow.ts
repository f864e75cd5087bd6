import { condition, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { SettlementActivities } from '../../activities/settlement';
import type { WebhookActivities } from '../../activities/webhooks';
import { DATABASE_ACTIVITY, LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { sendPayouts } from '../checkout-session/payout';
import { inRunDeliveries } from '../webhook-delivery/start';

export interface SettlementRunInput {
  network: string;
}

export interface SettlementRunOutcome {
  sweeps: number;
  payouts: number;
  failed: number;
}

const settlement = proxyActivities<SettlementActivities>(DATABASE_ACTIVITY);
const events = proxyLocalActivities<WebhookActivities>(LOCAL_DATABASE_ACTIVITY);

/**
 * One settlement run of a network (docs/settlement.md), started by the network's schedule every
 * PAYOUT_INTERVAL_SECONDS, one at a time: the deposits of completed payments swept into the treasury,
 * then each merchant paid what those payments owe them, `payment.settled` for each payment once its
 * payout is confirmed. What a run leaves unfinished (a worker lost, Temporal down) the next one
 * finishes before it plans more; a payout that failed for good is the merchant's balance again.
 */
export async function settlementRun(input: SettlementRunInput): Promise<SettlementRunOutcome> {
  const deliveries = inRunDeliveries(events.markDeliveryFailed);
  let failed = 0;
  const sweeps = await settlement.planSweeps(input.network);
  if (sweeps.length > 0 && !(await sendPayouts({ planned: sweeps })).settled) failed++;
  const payouts = await settlement.planMerchantPayouts(input.network);
  // Each payout on its own: one merchant's refusal never holds another's money.
  await Promise.all(
    payouts.map(async (id) => {
      if ((await sendPayouts({ planned: [id] })).settled) {
        for (const emitted of await settlement.announcePayoutSettled(id)) deliveries.start(emitted);
      } else {
        failed++;
        await settlement.settlementPayoutFailed(id);
      }
    }),
  );
  await condition(() => deliveries.done());
  return { sweeps: sweeps.length, payouts: payouts.length, failed };
}
