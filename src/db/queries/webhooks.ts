import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../schema';
import { nextSeqOf, type EventRow } from './events';
import { INTERRUPTED_ATTEMPT } from './webhook-attempts';
import type { EndpointRow } from './webhook-endpoints';

// An event's webhook deliveries, one per URL, written once, with the first attempts begun in the same
// statement where their POSTs go at once. Events are events.ts, endpoints webhook-endpoints.ts,
// attempts webhook-attempts.ts, the log webhook-delivery-log.ts.

/** One column of an `unnest(...)` row set: the values as one array parameter. */
const column = (values: unknown[]) => sql.param(values);

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

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

export async function setDeliveryStatus(db: DatabaseOrTransaction, id: string, status: DeliveryRow['status']): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status, updatedAt: sql`now()` })
    .where(eq(webhookDeliveries.id, id));
}
