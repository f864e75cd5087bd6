import type { Client } from '@temporalio/client';
import { EVM_NETWORKS } from '../../src/domain/assets';
import { SETTLEMENT_WORKFLOW, settlementScheduleId } from '../../src/temporal/settlement-schedules';

/** Ours' settlement schedules on a task queue, running only during ours' turns. */
export interface SettlementClock {
  resume(): Promise<void>;
  /** Pauses them, then waits for the run in flight (if any) to end. */
  pause(): Promise<void>;
}

/**
 * The settlement schedules ours' worker creates on `taskQueue` at start (one per network the stack
 * configures: every EVM network, all on the one anvil). At the bench's PAYOUT_INTERVAL_SECONDS=1
 * their runs cost the stack about a third of a core on the 2-core bench machine even when there is
 * nothing to settle (4 runs a second, 3 activities each): left running, they would land in the
 * other side's rounds and slow them. So the bench pauses them whenever it is not ours' turn.
 */
export function settlementClock(temporal: Client, taskQueue: string): SettlementClock {
  const handles = () => EVM_NETWORKS.map((network) => temporal.schedule.getHandle(settlementScheduleId(taskQueue, network)));
  return {
    resume: async () => void (await Promise.all(handles().map((h) => h.unpause('bench: ours takes its turn')))),
    async pause() {
      await Promise.all(handles().map((h) => h.pause('bench: another side takes its turn')));
      const running = `TaskQueue = "${taskQueue}" AND WorkflowType = "${SETTLEMENT_WORKFLOW}" AND ExecutionStatus = "Running"`;
      const until = Date.now() + 30_000;
      while ((await temporal.workflow.count(running)).count > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    },
  };
}
