import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { apiKeys, apiRequestLog } from '../schema';

export type RequestLogRow = typeof apiRequestLog.$inferSelect;

export async function insertRequestLog(db: DatabaseOrTransaction, rows: (typeof apiRequestLog.$inferInsert)[]): Promise<void> {
  await db.insert(apiRequestLog).values(rows);
}

/** The merchant's newest calls, each with the key's shown part (prefix and last four). */
export async function listRequestLog(db: DatabaseOrTransaction, merchantId: string, limit: number) {
  return db
    .select({ entry: apiRequestLog, keyPrefix: apiKeys.displayPrefix, keyLast4: apiKeys.last4 })
    .from(apiRequestLog)
    .leftJoin(apiKeys, and(eq(apiKeys.id, apiRequestLog.keyId), eq(apiKeys.merchantId, apiRequestLog.merchantId)))
    .where(eq(apiRequestLog.merchantId, merchantId))
    .orderBy(desc(apiRequestLog.createdAt), desc(apiRequestLog.id))
    .limit(limit);
}

export async function purgeRequestLog(db: DatabaseOrTransaction, olderThanDays: number): Promise<number> {
  const rows = await db
    .delete(apiRequestLog)
    .where(lt(apiRequestLog.createdAt, sql`now() - make_interval(days => ${olderThanDays})`))
    .returning({ id: apiRequestLog.id });
  return rows.length;
}
