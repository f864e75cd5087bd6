import { sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';

// What /metrics reads from Postgres on each scrape: small aggregates, one statement each. They scan
// their tables; at a scrape every 15–60 s that is cheap up to millions of rows.

export async function paymentCountsByStatus(db: DatabaseOrTransaction): Promise<{ status: string; count: number }[]> {
  return db.execute<{ status: string; count: number }>(sql`select status, count(*)::int as count from checkout_sessions group by status`);
}

export async function webhookDeliveryCountsByStatus(db: DatabaseOrTransaction): Promise<{ status: string; count: number }[]> {
  return db.execute<{ status: string; count: number }>(sql`select status, count(*)::int as count from webhook_deliveries group by status`);
}

/** Attempts by outcome: a 2xx answer is `succeeded`; any other answer, or none, is `failed`. */
export async function webhookAttemptCounts(db: DatabaseOrTransaction): Promise<{ outcome: string; count: number }[]> {
  return db.execute<{ outcome: string; count: number }>(
    sql`select case when status_code between 200 and 299 then 'succeeded' else 'failed' end as outcome, count(*)::int as count
        from webhook_attempts group by 1`,
  );
}

/** Each watched network: blocks between the head and the watcher's confirmed cursor at its last scan, and that scan's age. */
export async function chainWatcherPositions(db: DatabaseOrTransaction): Promise<{ network: string; lag: number; age: number }[]> {
  return db.execute<{ network: string; lag: number; age: number }>(
    sql`select network, greatest(head - confirmed_through, 0)::float8 as lag, extract(epoch from now() - updated_at)::float8 as age
        from chain_cursors where head is not null`,
  );
}
