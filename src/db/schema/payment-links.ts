import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';

// Shareable payment links: paid at most once, expired by their workflow.
export const paymentLinks = pgTable(
  'payment_links',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    status: text('status', { enum: ['active', 'paid', 'expired'] })
      .notNull()
      .default('active'),
    amountMinor: bigint('amount_minor', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    destinationAsset: text('destination_asset').notNull(),
    network: text('network').notNull(),
    description: text('description'),
    merchantOrderId: text('merchant_order_id'),
    // The checkout session that paid it; a link has at most one.
    paidSessionId: text('paid_session_id'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('payment_links_merchant_idx').on(t.merchantId), check('payment_links_amount_check', sql`${t.amountMinor} > 0`)],
);
