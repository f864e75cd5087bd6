import { bigint, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

// One row per (payment, event type, subject): an activity retried or a workflow replayed finds the
// row it wrote before. The subject is '' for status events and the exception id for
// `payment.exception`, of which a payment may have several. The body is serialised once, here, and every delivery sends these exact bytes.
// `seq` numbers a merchant's events in the order they became visible (insertEventOnce takes the next
// value from the merchant's merchant_event_seqs row, whose lock it holds until commit), so the
// merchant's event stream resumes after a `Last-Event-ID` without missing a row that
// committed late. Increasing; a gap only where two writers of one event raced (the loser's number).
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    paymentId: text('payment_id').notNull(),
    merchantId: text('merchant_id').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    subject: text('subject').notNull().default(''),
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('events_payment_type_subject_unique').on(t.paymentId, t.type, t.subject),
    unique('events_merchant_seq_unique').on(t.merchantId, t.seq),
  ],
);

// A merchant's last event number: one row per merchant, bumped by the statement that inserts the
// event, so taking a number is one statement (its row lock, held until commit, orders the commits)
// rather than a transaction around an advisory lock and a max().
export const merchantEventSeqs = pgTable('merchant_event_seqs', {
  merchantId: text('merchant_id').primaryKey(),
  seq: bigint('seq', { mode: 'number' }).notNull(),
});
