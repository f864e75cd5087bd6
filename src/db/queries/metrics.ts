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

/** Transitions of checkout sessions: each writes exactly one event row of its type. */
export async function paymentTransitionCounts(db: DatabaseOrTransaction): Promise<{ event: string; count: number }[]> {
  return db.execute<{ event: string; count: number }>(sql`select type as event, count(*)::int as count from events group by type`);
}

export async function simpleOrderCountsByStatus(db: DatabaseOrTransaction): Promise<{ status: string; count: number }[]> {
  return db.execute<{ status: string; count: number }>(sql`select status, count(*)::int as count from simple_orders group by status`);
}

/** Money off the happy path by kind and status: open ones are an operator's queue. */
export async function paymentExceptionCounts(db: DatabaseOrTransaction): Promise<{ kind: string; status: string; count: number }[]> {
  return db.execute<{ kind: string; status: string; count: number }>(sql`select kind, status, count(*)::int as count from payment_exceptions group by kind, status`);
}

/**
 * Webhook attempt latency over the last hour, as quantiles: computed in Postgres at scrape time, so
 * every API process reports the same figures (a histogram would count only one process's share).
 */
export async function webhookAttemptLatency(db: DatabaseOrTransaction): Promise<{ quantile: string; seconds: number }[]> {
  const rows = await db.execute<{ p50: number | null; p99: number | null }>(
    sql`select percentile_cont(0.5) within group (order by duration_ms) / 1000.0 as p50,
               percentile_cont(0.99) within group (order by duration_ms) / 1000.0 as p99
        from webhook_attempts where attempted_at > now() - interval '1 hour'`,
  );
  const row = rows[0];
  if (!row || row.p50 === null || row.p99 === null) return [];
  return [
    { quantile: '0.5', seconds: Number(row.p50) },
    { quantile: '0.99', seconds: Number(row.p99) },
  ];
}

/** Decisions §14: payouts given up and waiting for an operator's retry, by network and kind (alert on any). */
export async function failedPayoutCounts(db: DatabaseOrTransaction): Promise<{ network: string; kind: string; count: number }[]> {
  return db.execute<{ network: string; kind: string; count: number }>(sql`select network, kind, count(*)::int as count from payouts where status = 'failed' group by network, kind`);
}
