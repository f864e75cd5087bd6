import type { Database } from '../db/client';
import { getPaymentsSetting } from '../db/queries/platform-settings';
import { AppError } from '../domain/errors';

/** Spec rule 1.2: while an operator has payments off, nothing that would start a payment may run. */
export async function ensurePaymentsEnabled(db: Database): Promise<void> {
  if (!(await getPaymentsSetting(db)).enabled) {
    throw new AppError('PaymentsDisabled', 'New payments are disabled on this platform for now.');
  }
}
