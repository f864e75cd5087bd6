import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Platform-wide switches, one row per setting, read on every request that could start a payment
// so that every API process sees an operator's change at once.
export const platformSettings = pgTable('platform_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
