import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { events, merchantEventSeqs } from '../schema';

// A payment's events, each numbered in its merchant's stream: what webhooks deliver and the merchant's
// event stream replays.

export type EventRow = typeof events.$inferSelect;

/**
 * The event of (payment, type, subject), written by the first caller; later callers get that same row.
 * A new event takes the merchant's next `seq` in the same statement, from its merchant_event_seqs
 * row, whose lock is held until commit, so seq N+1 is only ever written once N is visible: a stream
 * reader past N never misses a late commit. Under READ COMMITTED the upsert re-reads the row a
 * concurrent writer committed while it waited. A merchant's first event creates its row with 1. A
 * repeat takes no number.
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
export const nextSeqOf = (event: { merchantId: string; paymentId: string; type: string }, subject: string) => sql`
  insert into ${merchantEventSeqs} as c (merchant_id, seq)
  select ${event.merchantId}, 1
  where not exists (select 1 from ${events} where payment_id = ${event.paymentId} and type = ${event.type} and subject = ${subject})
  on conflict (merchant_id) do update set seq = c.seq + 1
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
