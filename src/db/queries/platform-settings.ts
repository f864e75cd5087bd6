import { eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { platformSettings } from '../schema';

const PAYMENTS = 'payments';

/** The kill switch (docs/operations.md): payments are enabled unless an operator turned them off. */
export async function getPaymentsSetting(db: DatabaseOrTransaction): Promise<{ enabled: boolean; updatedAt: Date | null }> {
  const [row] = await db.select().from(platformSettings).where(eq(platformSettings.key, PAYMENTS));
  if (!row) return { enabled: true, updatedAt: null };
  return { enabled: (row.value as { enabled?: boolean }).enabled !== false, updatedAt: row.updatedAt };
}

export async function setPaymentsEnabled(db: DatabaseOrTransaction, enabled: boolean): Promise<{ enabled: boolean; updatedAt: Date }> {
  const [row] = await db
    .insert(platformSettings)
    .values({ key: PAYMENTS, value: { enabled } })
    .onConflictDoUpdate({ target: platformSettings.key, set: { value: { enabled }, updatedAt: sql`now()` } })
    .returning();
  return { enabled, updatedAt: row!.updatedAt };
}
