import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';

// Merchant webhook endpoints (admin API and dashboard), each with its own signing secret, encrypted at rest.
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
    // The event types sent to it (WEBHOOK_EVENT_TYPES); null sends every event, as before the choice existed.
    eventTypes: text('event_types').array(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_merchant_idx').on(t.merchantId)],
);
