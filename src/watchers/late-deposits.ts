import type { Client } from '@temporalio/client';
import type { SettlementSettings } from '../config';
import type { Database } from '../db/client';
import { recordClosedRunArrival } from '../activities/chain-proof';
import type { DepositFact } from '../domain/deposit-fact';
import { recordException } from '../payments/exception-runs';

export interface LateDepositSettings {
  /** How long an ended session's deposit address stays watched (LATE_DEPOSIT_WATCH_HOURS). */
  watchHours: number;
  taskQueue: string;
  /** DUST_THRESHOLD_MICRO: smaller transfers to an ended payment are recorded, never an exception. */
  dustThresholdMicro: bigint;
  settlement: SettlementSettings;
}

/**
 * A log to the deposit address of a session whose run has closed. Rather than keep
 * every payment's run open for days in case money comes, the money gets its own small run: the
 * exception is recorded (keyed by the transfer, so a re-sent log or the provider's callback for the
 * same transfer finds it) and its workflow, id = exception id, tells the merchant and waits for an
 * operator. Both steps are idempotent, and the watcher re-sends after a crash before its cursor moves.
 */
export async function recordClosedRunDeposit(
  db: Database,
  temporal: Client,
  settings: LateDepositSettings,
  paymentId: string,
  fact: DepositFact,
): Promise<void> {
  await recordException({ temporal, taskQueue: settings.taskQueue }, paymentId, async () => {
    const id = await recordClosedRunArrival({ db, chains: settings }, paymentId, fact);
    return id ? { id } : null;
  });
}
