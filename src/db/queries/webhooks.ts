import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { events, merchantEventSeqs, merchants, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../schema';
import { placeholderValue, preparedFor } from './prepared';

/** One column of an `unnest(...)` row set: the values as one array parameter. */
const column = (values: unknown[]) => sql.param(values);

export type EventRow = typeof events.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/**
 * The event of (payment, type, subject), written by the first caller; later callers get that same row.
 * A new event takes the merchant's next `seq` in the same statement, from its merchant_event_seqs
 * row, whose lock is held until commit, so seq N+1 is only ever written once N is visible: a stream
 * reader past N never misses a late commit. Under READ COMMITTED the upsert re-reads the row a
 * concurrent writer committed while it waited; the max() over events is only a floor, for rows
 * numbered before the counter existed. A repeat takes no number.
 */
export async function insertEventOnce(db: DatabaseOrTransaction, row: Omit<typeof events.$inferInsert, 'seq'>): Promise<EventRow> {
  const subject = row.subject ?? '';
  const inserted = await db.execute<RawEventRow>(sql`
    with next as (${nextSeqOf(row, subject)})
    insert into ${events} (id, payment_id, merchant_id, seq, type, subject, body, created_at)
    select ${row.id}, ${row.paymentId}, ${row.merchantId}, next.seq, ${row.type}, ${subject}, ${row.body}, coalesce(${row.createdAt instanceof Date ? row.createdAt.toISOString() : null}::timestamptz, now())
    from next
    on conflict (payment_id, type, subject) do nothing
    returning id, payment_id, merchant_id, seq, type, subject, body, created_at`);
  const first = inserted[0];
  if (first) return eventOf(first);
  // A repeat (an activity retried, a workflow replayed) finds the row the first call wrote.
  const [written] = await db
    .select()
    .from(events)
    .where(and(eq(events.paymentId, row.paymentId), eq(events.type, row.type), eq(events.subject, subject)));
  return written!;
}

/** The merchant's next seq for a new event (insertEventOnce says how), or no row when the event exists. */
const nextSeqOf = (event: { merchantId: string; paymentId: string; type: string }, subject: string) => sql`
  insert into ${merchantEventSeqs} as c (merchant_id, seq)
  select ${event.merchantId}, (select coalesce(max(seq), 0) + 1 from ${events} where merchant_id = ${event.merchantId})
  where not exists (select 1 from ${events} where payment_id = ${event.paymentId} and type = ${event.type} and subject = ${subject})
  on conflict (merchant_id) do update set seq = greatest(c.seq + 1, excluded.seq)
  returning seq`;

interface RawEventRow extends Record<string, unknown> {
  id: string;
  payment_id: string;
  merchant_id: string;
  seq: string | number;
  type: string;
  subject: string;
  body: string;
  created_at: Date | string;
}

const eventOf = (r: RawEventRow): EventRow => ({
  id: r.id,
  paymentId: r.payment_id,
  merchantId: r.merchant_id,
  seq: Number(r.seq),
  type: r.type,
  subject: r.subject,
  body: r.body,
  createdAt: r.created_at instanceof Date ? r.created_at : new Date(r.created_at),
});

/** A merchant's events after `afterSeq`, in seq order: what the merchant's event stream sends next. */
export async function listMerchantEventsAfter(
  db: DatabaseOrTransaction,
  merchantId: string,
  afterSeq: number,
  limit: number,
): Promise<Pick<EventRow, 'id' | 'seq' | 'type' | 'body'>[]> {
  return db
    .select({ id: events.id, seq: events.seq, type: events.type, body: events.body })
    .from(events)
    .where(and(eq(events.merchantId, merchantId), gt(events.seq, afterSeq)))
    .orderBy(asc(events.seq))
    .limit(limit);
}

/** The merchant's latest seq (0 before its first event): where a stream without Last-Event-ID starts. */
export async function lastMerchantEventSeq(db: DatabaseOrTransaction, merchantId: string): Promise<number> {
  const [row] = await db
    .select({ seq: sql<string | null>`max(${events.seq})` })
    .from(events)
    .where(eq(events.merchantId, merchantId));
  return Number(row?.seq ?? 0);
}

export async function insertEndpoint(db: DatabaseOrTransaction, row: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [inserted] = await db.insert(webhookEndpoints).values(row).returning();
  return inserted!;
}

export async function listEnabledEndpoints(db: DatabaseOrTransaction, merchantId: string): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.enabled, true)))
    .orderBy(asc(webhookEndpoints.createdAt));
}

/** Every endpoint of a merchant, enabled or not, oldest first (the operators' listing). */
export async function listEndpoints(db: DatabaseOrTransaction, merchantId: string): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.merchantId, merchantId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** Scoped by merchant too, so an endpoint id of another merchant matches nothing. */
export async function setEndpointEnabled(
  db: DatabaseOrTransaction,
  input: { merchantId: string; endpointId: string; enabled: boolean },
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ enabled: input.enabled })
    .where(and(eq(webhookEndpoints.id, input.endpointId), eq(webhookEndpoints.merchantId, input.merchantId)))
    .returning();
  return row;
}

/**
 * Removes the endpoint and its secret. Deliveries already logged keep their URL and attempts; one
 * still being retried to it stops at its next attempt, since its secret is gone.
 */
export async function deleteEndpoint(
  db: DatabaseOrTransaction,
  input: { merchantId: string; endpointId: string },
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, input.endpointId), eq(webhookEndpoints.merchantId, input.merchantId)))
    .returning();
  return row;
}

export async function insertDeliveriesOnce(
  db: DatabaseOrTransaction,
  rows: (typeof webhookDeliveries.$inferInsert)[],
): Promise<DeliveryRow[]> {
  if (rows.length === 0) return [];
  const inserted = await db
    .insert(webhookDeliveries)
    .values(rows)
    .onConflictDoNothing({ target: [webhookDeliveries.eventId, webhookDeliveries.url] })
    .returning();
  // All new (the common case): one round trip. A repeat reads what the first call wrote.
  const found =
    inserted.length === rows.length
      ? inserted
      : await db
          .select()
          .from(webhookDeliveries)
          .where(
            and(
              eq(webhookDeliveries.eventId, rows[0]!.eventId),
              inArray(
                webhookDeliveries.url,
                rows.map((r) => r.url),
              ),
            ),
          );
  return sortedDeliveries(found);
}

/**
 * insertDeliveriesOnce, with the first attempt of each new row among `begin` begun (beginAttempt) in
 * the same statement, for the activity that posts them at once (one round trip less per
 * event). A repeat (a row written before) begins nothing: its attempt begins as any other does.
 * Returns the deliveries, oldest first, and each begun attempt's id by delivery.
 */
export async function insertDeliveriesBegun(
  db: DatabaseOrTransaction,
  rows: (typeof webhookDeliveries.$inferInsert & { secretSource: DeliveryRow['secretSource'] })[],
  begin: ReadonlySet<string>,
): Promise<{ deliveries: DeliveryRow[]; attempts: Map<string, number> }> {
  if (rows.length === 0) return { deliveries: [], attempts: new Map() };
  const inserted = await db.execute<RawDeliveryRow & { attempt_id: string | number | null }>(sql`
    with fresh as (
      insert into ${webhookDeliveries} (id, event_id, payment_id, url, secret_source, secret_ref, attempt_count)
      select * from unnest(${column(rows.map((r) => r.id))}::text[], ${column(rows.map((r) => r.eventId))}::text[],
        ${column(rows.map((r) => r.paymentId))}::text[], ${column(rows.map((r) => r.url))}::text[],
        ${column(rows.map((r) => r.secretSource))}::text[], ${column(rows.map((r) => r.secretRef))}::text[],
        ${column(rows.map((r) => (begin.has(r.id) ? 1 : 0)))}::int[])
      on conflict (event_id, url) do nothing
      returning *
    ), begun as (
      insert into ${webhookAttempts} (delivery_id, status_code, duration_ms, error)
      select id, null, 0, ${INTERRUPTED_ATTEMPT} from fresh where attempt_count = 1
      returning id, delivery_id
    )
    select fresh.*, begun.id as attempt_id from fresh left join begun on begun.delivery_id = fresh.id`);
  const attempts = new Map<string, number>();
  for (const r of inserted) if (r.attempt_id !== null) attempts.set(r.id, Number(r.attempt_id));
  if (inserted.length === rows.length) return { deliveries: sortedDeliveries(inserted.map(deliveryOf)), attempts };
  // A repeat reads what the first call wrote (and begins nothing: attempts holds only this call's rows).
  return { deliveries: await insertDeliveriesOnce(db, rows), attempts };
}

/**
 * insertEventOnce and insertDeliveriesBegun in one statement (one round trip less per
 * event): the event with its seq, the deliveries of it (`rows`, whose eventId is `event.id`), and the
 * first attempt of each among `begin` begun. Null when the event was written before (a retried
 * activity): nothing is written then, and the caller takes the two-statement path, which finds the
 * first call's event and deliveries.
 */
export async function insertEventWithDeliveries(
  db: DatabaseOrTransaction,
  event: Omit<typeof events.$inferInsert, 'seq' | 'createdAt'>,
  rows: (typeof webhookDeliveries.$inferInsert & { secretSource: DeliveryRow['secretSource'] })[],
  begin: ReadonlySet<string>,
): Promise<{ event: EventRow; deliveries: DeliveryRow[]; attempts: Map<string, number> } | null> {
  const subject = event.subject ?? '';
  const written = await db.execute<
    Partial<RawDeliveryRow> & { event_seq: string | number; event_created_at: Date | string; attempt_id: string | number | null }
  >(sql`
    with next as (${nextSeqOf(event, subject)}), written as (
      insert into ${events} (id, payment_id, merchant_id, seq, type, subject, body, created_at)
      select ${event.id}, ${event.paymentId}, ${event.merchantId}, next.seq, ${event.type}, ${subject}, ${event.body}, now()
      from next
      on conflict (payment_id, type, subject) do nothing
      returning seq, created_at
    ), fresh as (
      insert into ${webhookDeliveries} (id, event_id, payment_id, url, secret_source, secret_ref, attempt_count)
      select * from unnest(${column(rows.map((r) => r.id))}::text[], ${column(rows.map((r) => r.eventId))}::text[],
        ${column(rows.map((r) => r.paymentId))}::text[], ${column(rows.map((r) => r.url))}::text[],
        ${column(rows.map((r) => r.secretSource))}::text[], ${column(rows.map((r) => r.secretRef))}::text[],
        ${column(rows.map((r) => (begin.has(r.id) ? 1 : 0)))}::int[])
      where exists (select 1 from written)
      returning *
    ), begun as (
      insert into ${webhookAttempts} (delivery_id, status_code, duration_ms, error)
      select id, null, 0, ${INTERRUPTED_ATTEMPT} from fresh where attempt_count = 1
      returning id, delivery_id
    )
    select written.seq as event_seq, written.created_at as event_created_at, fresh.*, begun.id as attempt_id
    from written left join fresh on true left join begun on begun.delivery_id = fresh.id`);
  const first = written[0];
  if (!first) return null;
  const attempts = new Map<string, number>();
  const deliveries: DeliveryRow[] = [];
  for (const r of written) {
    if (r.id === null || r.id === undefined) continue;
    deliveries.push(deliveryOf(r as RawDeliveryRow));
    if (r.attempt_id !== null) attempts.set(r.id, Number(r.attempt_id));
  }
  return {
    event: {
      id: event.id,
      paymentId: event.paymentId,
      merchantId: event.merchantId,
      seq: Number(first.event_seq),
      type: event.type,
      subject,
      body: event.body,
      createdAt: new Date(first.event_created_at),
    },
    deliveries: sortedDeliveries(deliveries),
    attempts,
  };
}

interface RawDeliveryRow extends Record<string, unknown> {
  id: string;
  event_id: string;
  payment_id: string;
  url: string;
  secret_source: DeliveryRow['secretSource'];
  secret_ref: string;
  status: DeliveryRow['status'];
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const deliveryOf = (r: RawDeliveryRow): DeliveryRow => ({
  id: r.id,
  eventId: r.event_id,
  paymentId: r.payment_id,
  url: r.url,
  secretSource: r.secret_source,
  secretRef: r.secret_ref,
  status: r.status,
  attemptCount: Number(r.attempt_count),
  lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
  lastError: r.last_error,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

/** One order on every path, whatever the database's collation: oldest first, then by id. */
const sortedDeliveries = (rows: DeliveryRow[]) =>
  rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

export async function findDelivery(db: DatabaseOrTransaction, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row;
}

/**
 * A delivery with its event and, when an endpoint's secret signs it, that endpoint: what every
 * attempt reads before it signs, in one round trip.
 */
export async function findDeliveryWithEvent(
  db: DatabaseOrTransaction,
  id: string,
): Promise<{ delivery: DeliveryRow; event: EventRow | null; endpoint: EndpointRow | null } | undefined> {
  const [row] = await db
    .select({ delivery: webhookDeliveries, event: events, endpoint: webhookEndpoints })
    .from(webhookDeliveries)
    .leftJoin(events, eq(events.id, webhookDeliveries.eventId))
    .leftJoin(webhookEndpoints, and(eq(webhookDeliveries.secretSource, 'endpoint'), eq(webhookEndpoints.id, webhookDeliveries.secretRef)))
    .where(eq(webhookDeliveries.id, id));
  return row;
}

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

export async function setDeliveryStatus(db: DatabaseOrTransaction, id: string, status: DeliveryRow['status']): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status, updatedAt: sql`now()` })
    .where(eq(webhookDeliveries.id, id));
}

export type DeliveryWithAttempts = { delivery: DeliveryRow; eventType: string; attempts: AttemptRow[] };

/** Each delivery with its attempts, oldest attempt first: one query for all of them. */
async function withAttempts(db: DatabaseOrTransaction, deliveries: { delivery: DeliveryRow; eventType: string }[]) {
  const attempts = deliveries.length
    ? await db
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.deliveryId,
            deliveries.map((d) => d.delivery.id),
          ),
        )
        .orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id))
    : [];
  return deliveries.map((d): DeliveryWithAttempts => ({ ...d, attempts: attempts.filter((a) => a.deliveryId === d.delivery.id) }));
}

export async function listDeliveriesForPayment(db: DatabaseOrTransaction, paymentId: string): Promise<DeliveryWithAttempts[]> {
  const deliveries = await db
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.paymentId, paymentId))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
  return withAttempts(db, deliveries);
}

/** A merchant's own deliveries (through their events), newest first, optionally of one status and event type. */
export async function listDeliveriesForMerchant(
  db: DatabaseOrTransaction,
  input: { merchantId: string; status?: DeliveryRow['status'] | undefined; eventType?: string | undefined; limit: number },
): Promise<DeliveryWithAttempts[]> {
  const deliveries = await db
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(events.merchantId, input.merchantId),
        input.status ? eq(webhookDeliveries.status, input.status) : undefined,
        input.eventType ? eq(events.type, input.eventType) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(input.limit);
  return withAttempts(db, deliveries);
}

export async function listAttempts(db: DatabaseOrTransaction, deliveryId: string): Promise<AttemptRow[]> {
  return db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, deliveryId))
    .orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id));
}

/** The merchant's default webhook secret, created once on first use (the first writer wins). */
export async function merchantWebhookSecret(db: DatabaseOrTransaction, merchantId: string, create: () => string): Promise<string | null> {
  // Made once per merchant: every later attempt reads it (one statement, no secret made and thrown away).
  const [known] = await db.select({ sealed: merchants.webhookSecretEncrypted }).from(merchants).where(eq(merchants.id, merchantId));
  if (!known || known.sealed) return known?.sealed ?? null;
  await db
    .update(merchants)
    .set({ webhookSecretEncrypted: create() })
    .where(and(eq(merchants.id, merchantId), isNull(merchants.webhookSecretEncrypted)));
  const [row] = await db.select({ sealed: merchants.webhookSecretEncrypted }).from(merchants).where(eq(merchants.id, merchantId));
  return row?.sealed ?? null;
}

/** A new signing secret for the merchant's endpoint; the next attempt of any delivery signs with it. */
export async function setEndpointSecret(
  db: DatabaseOrTransaction,
  input: { merchantId: string; endpointId: string; secretEncrypted: string },
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ secretEncrypted: input.secretEncrypted })
    .where(and(eq(webhookEndpoints.id, input.endpointId), eq(webhookEndpoints.merchantId, input.merchantId)))
    .returning();
  return row;
}

/** A payment's events (status changes, settlement, exceptions, refunds), oldest first: its merchant's timeline. */
export async function listPaymentEvents(
  db: DatabaseOrTransaction,
  paymentId: string,
): Promise<Pick<EventRow, 'id' | 'type' | 'subject' | 'createdAt'>[]> {
  return db
    .select({ id: events.id, type: events.type, subject: events.subject, createdAt: events.createdAt })
    .from(events)
    .where(eq(events.paymentId, paymentId))
    .orderBy(asc(events.seq));
}
