import { bigserial, index, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { events } from './events';

// One delivery per (event, distinct target URL); its id stays the same across every attempt.
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    paymentId: text('payment_id').notNull(),
    url: text('url').notNull(),
    // Which secret signs it: a merchant endpoint's, the merchant's default (session webhookUrl), a site's.
    secretSource: text('secret_source', { enum: ['endpoint', 'merchant', 'site'] }).notNull(),
    secretRef: text('secret_ref').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] })
      .notNull()
      .default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('webhook_deliveries_event_url_unique').on(t.eventId, t.url), index('webhook_deliveries_payment_idx').on(t.paymentId)],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull().defaultNow(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attemptedAt)],
);
