import { and, desc, eq, lt } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { dashboardAuditLog } from '../schema';

// The dashboard's audit log: one row per action a person took, newest first by id (ids grow with
// time, and a page of rows is cut by id, so a row written meanwhile never shifts a page).

export type AuditRow = typeof dashboardAuditLog.$inferSelect;

export async function insertAuditRow(db: DatabaseOrTransaction, row: typeof dashboardAuditLog.$inferInsert): Promise<void> {
  await db.insert(dashboardAuditLog).values(row);
}

export async function listAuditRows(
  db: DatabaseOrTransaction,
  merchantId: string,
  options: { limit: number; beforeId?: number },
): Promise<AuditRow[]> {
  return db
    .select()
    .from(dashboardAuditLog)
    .where(
      and(
        eq(dashboardAuditLog.merchantId, merchantId),
        options.beforeId === undefined ? undefined : lt(dashboardAuditLog.id, options.beforeId),
      ),
    )
    .orderBy(desc(dashboardAuditLog.id))
    .limit(options.limit);
}
