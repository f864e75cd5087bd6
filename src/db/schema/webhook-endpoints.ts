import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';

// Merchant webhook endpoints (admin API), each with its own signing secret, encrypted at rest.
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    url: text('url').notNull(),
    secretEncrypted: text('secret_encrypted').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_merchant_idx').on(t.merchantId)],
);
