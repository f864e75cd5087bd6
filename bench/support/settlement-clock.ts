import type { Client } from '@temporalio/client';
import { SETTLEMENT_WORKFLOW, settlementScheduleId } from '../../src/temporal/settlement-schedules';

/** Ours' settlement schedule on a task queue, running only during ours' turns. */
export interface SettlementClock {
  resume(): Promise<void>;
  /** Pauses them, then waits for the run in flight (if any) to end. */
  pause(): Promise<void>;
}

/**
 * The settlement schedule ours' worker creates on `taskQueue` at start (one run a second of every
 * network the stack configures, at the bench's PAYOUT_INTERVAL_SECONDS=1). Its runs cost the stack
 * CPU even when there is nothing to settle: left running, they would land in the other side's rounds
 * and slow them. So the bench pauses it whenever it is not ours' turn.
 */
export function settlementClock(temporal: Client, taskQueue: string): SettlementClock {
  const handle = () => temporal.schedule.getHandle(settlementScheduleId(taskQueue));
  return {
    resume: () => handle().unpause('bench: ours takes its turn'),
    async pause() {
      await handle().pause('bench: another side takes its turn');
      const running = `TaskQueue = "${taskQueue}" AND WorkflowType = "${SETTLEMENT_WORKFLOW}" AND ExecutionStatus = "Running"`;
      const until = Date.now() + 30_000;
      while ((await temporal.workflow.count(running)).count > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    },
  };
}
