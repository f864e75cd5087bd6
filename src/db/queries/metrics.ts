import { sql, type SQL } from 'drizzle-orm';
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
  return db.execute<{ kind: string; status: string; count: number }>(
    sql`select kind, status, count(*)::int as count from payment_exceptions group by kind, status`,
  );
}

/** Payouts given up and waiting for an operator's retry, by network and kind (alert on any). */
export async function failedPayoutCounts(db: DatabaseOrTransaction): Promise<{ network: string; kind: string; count: number }[]> {
  return db.execute<{ network: string; kind: string; count: number }>(
    sql`select network, kind, count(*)::int as count from payouts where status = 'failed' and cleared_at is null group by network, kind`,
  );
}

/** Histogram buckets in seconds, shared by the histograms read from Postgres. */
export interface BucketCounts {
  /** Count of rows at or under each bound, in the order of the bounds asked for (cumulative). */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * A histogram of `seconds` over rows, grouped by `label`, as cumulative bucket counts: what a
 * Prometheus histogram exposes, computed in Postgres so every API process reports the same figures.
 */
async function histogramRows(
  db: DatabaseOrTransaction,
  rows: SQL,
  bounds: readonly number[],
): Promise<(BucketCounts & { label: string })[]> {
  const columns = sql.join(
    bounds.map((b, i) => sql`count(*) filter (where seconds <= ${sql.raw(String(b))})::float8 as ${sql.raw(`b${i}`)}`),
    sql`, `,
  );
  const result = await db.execute<Record<string, number | string>>(
    sql`select label, ${columns}, coalesce(sum(seconds), 0)::float8 as sum, count(*)::float8 as count from (${rows}) r group by label`,
  );
  return result.map((r) => ({
    label: String(r.label),
    buckets: bounds.map((_b, i) => Number(r[`b${i}`])),
    sum: Number(r.sum),
    count: Number(r.count),
  }));
}

/** Webhook attempts by outcome: how long each took (a 2xx answer is `succeeded`). */
export function webhookAttemptHistogram(db: DatabaseOrTransaction, bounds: readonly number[]) {
  return histogramRows(
    db,
    sql`select case when status_code between 200 and 299 then 'succeeded' else 'failed' end as label, duration_ms / 1000.0 as seconds from webhook_attempts`,
    bounds,
  );
}

/** Completed checkout sessions by rail: from creation to completion. */
export function paymentCompletionHistogram(db: DatabaseOrTransaction, bounds: readonly number[]) {
  return histogramRows(
    db,
    sql`select rail_type as label, extract(epoch from completed_at - created_at) as seconds from checkout_sessions where status = 'completed' and completed_at is not null`,
    bounds,
  );
}

/** Confirmed payouts by kind: from planning to confirmation on chain. */
export function payoutConfirmationHistogram(db: DatabaseOrTransaction, bounds: readonly number[]) {
  return histogramRows(
    db,
    sql`select kind as label, extract(epoch from confirmed_at - created_at) as seconds from payouts where status = 'confirmed' and confirmed_at is not null`,
    bounds,
  );
}

/** Checkout sessions by status, rail and network: the outcomes of payments. */
export async function paymentOutcomeCounts(
  db: DatabaseOrTransaction,
): Promise<{ status: string; rail_type: string; network: string; count: number }[]> {
  return db.execute<{ status: string; rail_type: string; network: string; count: number }>(
    sql`select status, rail_type, network, count(*)::int as count from checkout_sessions group by status, rail_type, network`,
  );
}

/** Payouts not yet confirmed nor failed, per network: the oldest one's age (a stuck payout grows it). */
export async function openPayoutAges(db: DatabaseOrTransaction): Promise<{ network: string; count: number }[]> {
  return db.execute<{ network: string; count: number }>(
    sql`select network, extract(epoch from now() - min(created_at))::float8 as count from payouts where status not in ('confirmed', 'failed') group by network`,
  );
}

/** Deliveries still being attempted: the oldest one's age, in seconds (0 with none). */
export async function oldestPendingDeliveryAge(db: DatabaseOrTransaction): Promise<number> {
  const rows = await db.execute<{ age: number | null }>(
    sql`select extract(epoch from now() - min(created_at))::float8 as age from webhook_deliveries where status = 'pending'`,
  );
  return Number(rows[0]?.age ?? 0);
}
