import { bigint, index, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

// Decisions §12, minimally: money off the happy path recorded once and never overwritten. Only the
// proof-of-payment kinds are written so far (overpaid, underpaid, unverified); the exception
// machinery (events, operator actions, the other kinds) builds on these rows.
export const paymentExceptions = pgTable(
  'payment_exceptions',
  {
    // exc_ + 24 base62.
    id: text('id').primaryKey(),
    paymentKind: text('payment_kind', { enum: ['checkout_session', 'simple_order'] }).notNull(),
    paymentId: text('payment_id').notNull(),
    kind: text('kind', { enum: ['late', 'duplicate', 'overpaid', 'underpaid', 'unverified'] }).notNull(),
    // Micro units of the stablecoin: the excess (overpaid), the credited amount (underpaid), the
    // amount the provider claimed (unverified).
    amountMicro: bigint('amount_micro', { mode: 'bigint' }).notNull(),
    // Transaction hashes, log keys, provider ids: whatever an operator needs to find the money.
    references: jsonb('references').notNull().default({}),
    status: text('status', { enum: ['open', 'accepted', 'refunded'] }).notNull().default('open'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // One record of each proof kind per payment: a retried activity finds the first and writes nothing.
  (t) => [unique('payment_exceptions_payment_kind_unique').on(t.paymentId, t.kind), index('payment_exceptions_status_idx').on(t.status)],
);
