import { index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

// Every verified provider callback, once per provider event id: the dedupe of retried callbacks and
// the audit trail an operator reads when a payment is questioned.
export const providerEvents = pgTable(
  'provider_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    paymentId: text('payment_id').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    // received → signaled (handed to the workflow) | late (session already terminal) | rejected
    state: text('state', { enum: ['received', 'signaled', 'late', 'rejected'] }).notNull(),
    note: text('note'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] }), index('provider_events_payment_idx').on(t.paymentId)],
);
