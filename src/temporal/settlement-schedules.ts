import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { ChainNetworkConfig, SettlementSettings } from '../config';

// Batched settlement's clock (docs/settlement.md): a Temporal schedule per task queue starts a
// settlement run of every configured network every PAYOUT_INTERVAL_SECONDS. The server keeps the
// schedule, so runs go on while workers come and go; one at a time (overlap: skip), so a slow run is
// never doubled. One schedule for all networks, not one each: most runs find nothing to do, and an
// idle run costs a workflow start and a read, whatever the number of networks it reads for.

export const SETTLEMENT_WORKFLOW = 'settlementRun';

export const settlementScheduleId = (taskQueue: string) => `settlement:${taskQueue}`;

function scheduleOf(taskQueue: string, networks: string[], intervalSeconds: number): ScheduleOptions {
  return {
    scheduleId: settlementScheduleId(taskQueue),
    spec: { intervals: [{ every: `${intervalSeconds}s` }] },
    action: {
      type: 'startWorkflow',
      workflowType: SETTLEMENT_WORKFLOW,
      // The server appends each run's time; the schedule's id keeps two task queues' runs apart.
      workflowId: settlementScheduleId(taskQueue),
      taskQueue,
      args: [{ networks }],
    },
    // A missed run is no debt: the next one takes everything.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
  };
}

/**
 * Creates the task queue's schedule, or brings an existing one to the configured interval and
 * networks. Idempotent: every worker calls it at start. Returns a function that deletes it (tests
 * end their task queue). No networks: no schedule.
 */
export async function ensureSettlementSchedule(
  client: Client,
  input: { taskQueue: string; networks: readonly Pick<ChainNetworkConfig, 'network'>[]; settlement: SettlementSettings },
): Promise<() => Promise<void>> {
  if (input.networks.length === 0) return async () => undefined;
  const options = scheduleOf(
    input.taskQueue,
    input.networks.map((n) => n.network),
    input.settlement.intervalSeconds,
  );
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
  return async () => {
    await client.schedule.getHandle(options.scheduleId).delete();
  };
}
