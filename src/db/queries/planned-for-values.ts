import { sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';

/**
 * A page of a filtered list, planned for this call's values by one backend. Statements are prepared
 * (db/prepared-statements.ts), and after five calls Postgres may keep a generic plan, made without the
 * values: a range between two unknown bounds is taken as 0.5 % of the rows, so with several filters
 * its estimate falls to one row and it sorted every row of the statuses asked for (63 ms on 100,000
 * payments) instead of walking the (merchant, created_at, id) index until the page is full (4 ms).
 * Parallel workers are off too: a page is one backend's work, and a parallel plan for one is the
 * planner betting the filter is rare. With the values known it took that bet when its estimate
 * came out a third of the true count, scanning every merchant's rows in three processes (23 ms, where
 * walking the index took under 3). Both settings end with the transaction; postgres.js pipelines its
 * two statements, in call order.
 */
export function plannedForValues<T>(db: DatabaseOrTransaction, query: (tx: DatabaseOrTransaction) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const [, rows] = await Promise.all([
      tx.execute(
        sql`select set_config('plan_cache_mode', 'force_custom_plan', true), set_config('max_parallel_workers_per_gather', '0', true)`,
      ),
      query(tx),
    ]);
    return rows;
  });
}
