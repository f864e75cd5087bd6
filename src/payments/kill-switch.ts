import type { Database } from '../db/client';
import { getPaymentsSetting, setPaymentsEnabled } from '../db/queries/platform-settings';
import { AppError } from '../domain/errors';

/** Spec rule 1.2: while an operator has payments off, nothing that would start a payment may run. */
export async function ensurePaymentsEnabled(db: Database): Promise<void> {
  if (!(await getPaymentsSetting(db)).enabled) {
    throw new AppError('PaymentsDisabled', 'New payments are disabled on this platform for now.');
  }
}

/** The operators' kill switch itself: read and set for every API process at once (it lives in Postgres). */
export function killSwitch(db: Database) {
  return {
    read: () => getPaymentsSetting(db),
    set: (enabled: boolean) => setPaymentsEnabled(db, enabled),
  };
}
