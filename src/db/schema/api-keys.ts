import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';

export const API_KEY_KINDS = ['live', 'restricted'] as const;

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    kind: text('kind', { enum: API_KEY_KINDS }).notNull(),
    // SHA-256 of the key; the key itself is never stored.
    keyHash: text('key_hash').notNull().unique(),
    displayPrefix: text('display_prefix').notNull(),
    last4: text('last4').notNull(),
    scopes: text('scopes').array().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    // Set when a rotation replaces this key: it keeps working until then (24 h grace).
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [index('api_keys_merchant_idx').on(t.merchantId)],
);
