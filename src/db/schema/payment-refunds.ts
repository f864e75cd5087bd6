import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

// Refunds of a completed payment, wholly or partly (domain/payment-refund.ts). One
// row per refund asked for, written by the refund's own run (with the amount checked under the
// payment's and merchant's locks) before anything is sent; its payout (kind payment_refund, from the treasury) carries the
// refund's id, so a retried plan finds it and the transfer is sent once. A refund counts against the
// payment's refundable rest from the moment it is asked for until it has failed.
export const paymentRefunds = pgTable(
  'payment_refunds',
  {
    // rf_ + 24 base62; also the id of the workflow that sends it.
    id: text('id').primaryKey(),
    paymentId: text('payment_id').notNull(),
    merchantId: text('merchant_id').notNull(),
    asset: text('asset').notNull(),
    network: text('network').notNull(),
    amountMicro: bigint('amount_micro', { mode: 'bigint' }).notNull(),
    // EIP-55, checked like an exception's refund address.
    address: text('address').notNull(),
    // requested: written, its payout not confirmed yet; refunded: the transfer confirmed (ledger
    // posted); failed: the transfer can no longer go without an operator's retry (failure_reason).
    status: text('status', { enum: ['requested', 'refunded', 'failed'] })
      .notNull()
      .default('requested'),
    payoutId: text('payout_id'),
    txHash: text('tx_hash'),
    failureReason: text('failure_reason'),
    // The asker's key for this request (the dashboard's form sends one per refund it shows): the same
    // key again answers the refund it made, so a double click is one refund.
    requestKey: text('request_key'),
    // Who asked: `admin`, or `dashboard:<user id>`.
    requestedBy: text('requested_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
  },
  (t) => [
    index('payment_refunds_payment_idx').on(t.paymentId),
    unique('payment_refunds_request_key_unique').on(t.paymentId, t.requestKey),
    index('payment_refunds_merchant_idx').on(t.merchantId, t.asset, t.network),
    check('payment_refunds_amount_check', sql`${t.amountMicro} > 0`),
  ],
);
