import { and, asc, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { events, webhookAttempts, webhookDeliveries } from '../schema';
import { placeholderValue, preparedFor } from './prepared';

// A delivery's attempts: each logged before its POST and finished with its outcome, and the
// deliveries whose attempts nothing is going to make any more.

/** One column of an `unnest(...)` row set: the values as one array parameter. */
const column = (values: unknown[]) => sql.param(values);

/** What an attempt row says until its outcome is written: a worker that dies mid-POST leaves it so. */
export const INTERRUPTED_ATTEMPT = 'interrupted: the attempt was started, no outcome was recorded';

/**
 * Logs an attempt before its POST is sent, so every request a receiver sees is in the delivery log,
 * also when the worker dies before the answer (the row then keeps INTERRUPTED_ATTEMPT).
 */
export async function beginAttempt(db: DatabaseOrTransaction, deliveryId: string): Promise<number> {
  // One statement (the count in a data-modifying CTE): as atomic as a transaction, one round trip
  // instead of four, and no pooled connection held between them while deliveries queue.
  const counted = db.$with('counted').as(
    db
      .update(webhookDeliveries)
      .set({ attemptCount: sql`${webhookDeliveries.attemptCount} + 1`, updatedAt: sql`now()` })
      .where(eq(webhookDeliveries.id, deliveryId))
      .returning({ id: webhookDeliveries.id }),
  );
  const [row] = await db
    .with(counted)
    .insert(webhookAttempts)
    .values({ deliveryId, statusCode: null, durationMs: 0, error: INTERRUPTED_ATTEMPT })
    .returning({ id: webhookAttempts.id });
  return row!.id;
}

/** What an attempt came to, written by finishAttempt (one) or finishAttempts (a payout's together). */
export interface AttemptOutcome {
  attemptId: number;
  deliveryId: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  succeeded: boolean;
}

export async function finishAttempt(db: DatabaseOrTransaction, input: AttemptOutcome): Promise<void> {
  // The attempt's outcome and the delivery's status in one statement, like beginAttempt. Once per
  // attempt, three a payment: built once per process (prepared.ts).
  const name = input.succeeded ? 'finish_attempt_succeeded' : 'finish_attempt';
  const query = preparedFor(db, name, () => {
    const finished = db.$with('finished').as(
      db
        .update(webhookAttempts)
        .set({ statusCode: placeholderValue('statusCode'), durationMs: placeholderValue('durationMs'), error: placeholderValue('error') })
        .where(eq(webhookAttempts.id, sql.placeholder('attemptId')))
        .returning({ id: webhookAttempts.id }),
    );
    return db
      .with(finished)
      .update(webhookDeliveries)
      .set({
        lastStatusCode: placeholderValue('statusCode'),
        lastError: placeholderValue('error'),
        updatedAt: sql`now()`,
        ...(input.succeeded ? { status: 'succeeded' as const } : {}),
      })
      .where(eq(webhookDeliveries.id, sql.placeholder('deliveryId')))
      .prepare(name);
  });
  await query.execute({
    statusCode: input.statusCode,
    durationMs: input.durationMs,
    error: input.error,
    attemptId: input.attemptId,
    deliveryId: input.deliveryId,
  });
}

/** Attempts' outcomes (finishAttempt's) written together: a payout's `payment.settled` attempts, one statement for all. */
export async function finishAttempts(db: DatabaseOrTransaction, outcomes: readonly AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  if (outcomes.length === 1) return finishAttempt(db, outcomes[0]!);
  await db.execute(sql`
    with outcome as (
      select * from unnest(${column(outcomes.map((o) => o.attemptId))}::bigint[], ${column(outcomes.map((o) => o.deliveryId))}::text[],
        ${column(outcomes.map((o) => o.statusCode))}::int[], ${column(outcomes.map((o) => o.durationMs))}::int[],
        ${column(outcomes.map((o) => o.error))}::text[], ${column(outcomes.map((o) => (o.succeeded ? 1 : 0)))}::int[])
        as o(attempt_id, delivery_id, status_code, duration_ms, error, succeeded)
    ), finished as (
      update ${webhookAttempts} a set status_code = o.status_code, duration_ms = o.duration_ms, error = o.error
      from outcome o where a.id = o.attempt_id
      returning a.id
    )
    update ${webhookDeliveries} d set last_status_code = o.status_code, last_error = o.error, updated_at = now(),
      status = case when o.succeeded = 1 then 'succeeded' else d.status end
    from outcome o where d.id = o.delivery_id`);
}

/**
 * Pending deliveries nothing is going to attempt, oldest first: whatever was to post them (the
 * payment's run, a delivery workflow) died and no run took them up again. Two kinds:
 * - no attempt reached for `olderThanSeconds`: every path that writes one attempts it at once;
 * - the last attempt interrupted (begun, its outcome never written: the worker died mid-attempt)
 *   and begun longer ago than `limitSeconds` (an attempt's bound) plus the interval the retry
 *   schedule waits after it plus `olderThanSeconds`. Whatever retries an interrupted attempt does so
 *   by then: the run that made it replays the local activity at once, and Temporal retries a durable
 *   attempt at its start-to-close timeout plus that interval (the log's count of attempts, resends
 *   included, only lengthens it). A live attempt is younger than its bound, so it is never taken.
 */
export async function listOrphanedDeliveries(
  db: DatabaseOrTransaction,
  input: { olderThanSeconds: number; limitSeconds: number; schedule: { baseSeconds: number; maxIntervalSeconds: number }; limit: number },
): Promise<{ id: string; merchantId: string | null; attemptCount: number }[]> {
  const { olderThanSeconds, limitSeconds, schedule } = input;
  const last = db
    .select({ attemptedAt: webhookAttempts.attemptedAt, statusCode: webhookAttempts.statusCode, error: webhookAttempts.error })
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, webhookDeliveries.id))
    .orderBy(desc(webhookAttempts.attemptedAt), desc(webhookAttempts.id))
    .limit(1)
    .as('last');
  // The wait after the n-th attempt: base·2^(n−1), at most the maximum (webhook-deliveries.ts, nextAttemptAt).
  const interval = sql`least(${schedule.baseSeconds}::float8 * power(2, greatest(${webhookDeliveries.attemptCount}, 1) - 1), ${schedule.maxIntervalSeconds}::float8)`;
  return db
    .select({ id: webhookDeliveries.id, merchantId: events.merchantId, attemptCount: webhookDeliveries.attemptCount })
    .from(webhookDeliveries)
    .leftJoin(events, eq(events.id, webhookDeliveries.eventId))
    .leftJoinLateral(last, sql`true`)
    .where(
      and(
        eq(webhookDeliveries.status, 'pending'),
        or(
          and(
            eq(webhookDeliveries.attemptCount, 0),
            lt(webhookDeliveries.createdAt, sql`now() - make_interval(secs => ${olderThanSeconds})`),
          ),
          and(
            isNull(last.statusCode),
            eq(last.error, INTERRUPTED_ATTEMPT),
            lt(last.attemptedAt, sql`now() - make_interval(secs => ${limitSeconds}::float8 + ${interval} + ${olderThanSeconds}::float8)`),
          ),
        ),
      ),
    )
    .orderBy(asc(webhookDeliveries.createdAt))
    .limit(input.limit);
}
