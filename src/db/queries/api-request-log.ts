import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { apiKeys, apiRequestLog } from '../schema';

export type RequestLogRow = typeof apiRequestLog.$inferSelect;

/**
 * One statement of fixed text whatever the batch's size: six array parameters, unnested. A
 * multi-row VALUES of up to 500 rows was 3,000 parameters for drizzle to build on the API's event
 * loop (a lookup waiting behind it: the bench's p99 at half load), and a statement text, prepared
 * anew, per batch size.
 */
export async function insertRequestLog(db: DatabaseOrTransaction, rows: (typeof apiRequestLog.$inferInsert)[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <K extends keyof (typeof rows)[number]>(key: K) => sql.param(rows.map((row) => row[key]));
  await db.execute(sql`
    insert into ${apiRequestLog} (merchant_id, key_id, method, path, status_code, request_id)
    select * from unnest(${column('merchantId')}::text[], ${column('keyId')}::text[], ${column('method')}::text[],
      ${column('path')}::text[], ${column('statusCode')}::int[], ${column('requestId')}::text[])`);
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
