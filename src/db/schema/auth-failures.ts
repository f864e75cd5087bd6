import { bigserial, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Failed credential attempts, kept in Postgres so that every API process counts the same window.
export const authFailures = pgTable(
  'auth_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // 'merchant' (subject = merchant id as sent), 'ip' (plugin connect; subject = client address),
    // 'admin_ip' (admin token) or 'metrics_ip' (metrics token; subject = client address).
    dimension: text('dimension', { enum: ['merchant', 'ip', 'admin_ip', 'metrics_ip'] }).notNull(),
    subject: text('subject').notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('auth_failures_lookup_idx').on(t.dimension, t.subject, t.occurredAt)],
);
