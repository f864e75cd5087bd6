import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { ChainNetworkConfig, SettlementSettings } from '../config';

// Batched settlement's clock (docs/settlement.md): a Temporal schedule per network and task queue
// starts a settlement run every PAYOUT_INTERVAL_SECONDS. The server keeps the schedule, so runs go
// on while workers come and go; one at a time (overlap: skip), so a slow run is never doubled.

export const SETTLEMENT_WORKFLOW = 'settlementRun';

export const settlementScheduleId = (taskQueue: string, network: string) => `settlement:${taskQueue}:${network}`;

function scheduleOf(taskQueue: string, network: string, intervalSeconds: number): ScheduleOptions {
  return {
    scheduleId: settlementScheduleId(taskQueue, network),
    spec: { intervals: [{ every: `${intervalSeconds}s` }] },
    action: {
      type: 'startWorkflow',
      workflowType: SETTLEMENT_WORKFLOW,
      // The server appends each run's time; the schedule's id keeps two task queues' runs apart.
      workflowId: settlementScheduleId(taskQueue, network),
      taskQueue,
      args: [{ network }],
    },
    // A missed run is no debt: the next one takes everything.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
  };
}

/**
 * Creates each network's schedule, or brings an existing one to the configured interval. Idempotent:
 * every worker calls it at start. Returns a function that deletes them (tests end their task queue).
 */
export async function ensureSettlementSchedules(
  client: Client,
  input: { taskQueue: string; networks: readonly Pick<ChainNetworkConfig, 'network'>[]; settlement: SettlementSettings },
): Promise<() => Promise<void>> {
  const ids: string[] = [];
  for (const { network } of input.networks) {
    const options = scheduleOf(input.taskQueue, network, input.settlement.intervalSeconds);
    ids.push(options.scheduleId);
    try {
      await client.schedule.create(options);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await client.schedule.getHandle(options.scheduleId).update((previous) => ({
        ...previous,
        spec: options.spec,
        action: { ...previous.action, ...options.action },
        policies: options.policies!,
      }));
    }
  }
  return async () => {
    for (const id of ids) await client.schedule.getHandle(id).delete();
  };
}
