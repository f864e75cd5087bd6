import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { EXCEPTION_KINDS } from '../../domain/exceptions';

// Money off the happy path has an owner. One row per arrival of money, never
// overwritten: a later arrival is another row, and an operator's resolution changes only the status.
export const paymentExceptions = pgTable(
  'payment_exceptions',
  {
    // exc_ + 24 base62.
    id: text('id').primaryKey(),
    paymentKind: text('payment_kind', { enum: ['checkout_session', 'simple_order'] }).notNull(),
    paymentId: text('payment_id').notNull(),
    kind: text('kind', { enum: EXCEPTION_KINDS }).notNull(),
    // What arrived, so a retried activity or a second report of the same money finds the first row:
    // `tx:<network>:<hash>` for money seen on chain or announced with its transfer by a provider (the
    // provider's callback and the chain log of one transfer are one arrival), `provider:<eventId>`
    // for a provider's word without a transfer, `expiry` / `claim` for what the session's end decides.
    // 'payment': rows recorded before arrivals were keyed (one per payment and kind).
    arrivalKey: text('arrival_key').notNull().default('payment'),
    // Micro units of the stablecoin: the amount that arrived (late, duplicate), the excess (overpaid),
    // the credited amount (underpaid), the amount the provider claimed (unverified).
    amountMicro: bigint('amount_micro', { mode: 'bigint' }).notNull(),
    // The token that arrived when it is not the payment's own (wrong_asset): its contract and, when
    // this deployment configures it, its asset name. Null: the payment's own token.
    token: text('token'),
    asset: text('asset'),
    // Transaction hashes, log keys, provider ids: whatever an operator needs to find the money.
    references: jsonb('references').notNull().default({}),
    status: text('status', { enum: ['open', 'accepted', 'refunded'] })
      .notNull()
      .default('open'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [
    unique('payment_exceptions_arrival_unique').on(t.paymentId, t.kind, t.arrivalKey),
    index('payment_exceptions_status_idx').on(t.status, t.createdAt),
    index('payment_exceptions_payment_idx').on(t.paymentId),
    // An exception is money: never nothing, never less (domain/exceptions.ts asks the same first).
    check('payment_exceptions_amount_check', sql`${t.amountMicro} > 0`),
  ],
);
