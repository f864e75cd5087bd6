import type { Database } from '../db/client';
import { getPaymentsSetting, setPaymentsEnabled } from '../db/queries/platform-settings';
import { AppError } from '../domain/errors';

/**
 * How long an API process acts on the kill switch as it last read it (one read less per
 * creation). The bound of a flip: at once in the process that made it (set() below forgets what it
 * read), within this in every other process of the deployment.
 */
export const KILL_SWITCH_CACHE_MS = 1000;

// Per database handle (one per process, passed in): what was read, when, and in which generation (a
// set() bumps it, so a read that began before a flip never puts the old state back).
const readings = new WeakMap<Database, { enabled: boolean; at: number; generation: number }>();
const generations = new WeakMap<Database, number>();

async function paymentsEnabled(db: Database): Promise<boolean> {
  const hit = readings.get(db);
  const generation = generations.get(db) ?? 0;
  if (hit && hit.generation === generation && Date.now() - hit.at < KILL_SWITCH_CACHE_MS) return hit.enabled;
  const at = Date.now();
  const { enabled } = await getPaymentsSetting(db);
  if ((generations.get(db) ?? 0) === generation) readings.set(db, { enabled, at, generation });
  return enabled;
}

/** While an operator has payments off (docs/operations.md), nothing that would start a payment may run. */
export async function ensurePaymentsEnabled(db: Database): Promise<void> {
  if (!(await paymentsEnabled(db))) {
    throw new AppError('PaymentsDisabled', 'New payments are disabled on this platform for now.');
  }
}

/** The operators' kill switch itself: read and set for every API process at once (it lives in Postgres). */
export function killSwitch(db: Database) {
  return {
    read: () => getPaymentsSetting(db),
    set: async (enabled: boolean) => {
      generations.set(db, (generations.get(db) ?? 0) + 1);
      try {
        return await setPaymentsEnabled(db, enabled);
      } finally {
        // Again after the write: a read between the bump and the commit may have cached the old state.
        generations.set(db, (generations.get(db) ?? 0) + 1);
      }
    },
  };
}
