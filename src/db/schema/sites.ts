import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';

// Plugin connections: one per website, keyed by its normalised origin. A merchant's
// claim on a website stays pending_verification until the site serves the claim's token (proof of
// control); only then is it connected. Several merchants may hold pending claims on one origin, so
// a claim reveals nothing about others; at most one claim per origin is ever connected.
// Reconnecting updates the row and keeps its id and webhook secret.
export const sites = pgTable(
  'sites',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    origin: text('origin').notNull(),
    siteUrl: text('site_url').notNull(),
    callbackUrl: text('callback_url').notNull(),
    platform: text('platform', { enum: ['woocommerce', 'shopify', 'magento', 'prestashop', 'opencart', 'custom'] }).notNull(),
    pluginVersion: text('plugin_version').notNull(),
    webhookSecretEncrypted: text('webhook_secret_encrypted').notNull(),
    // Rows connected before proof of control existed must prove it too: they start pending.
    status: text('status', { enum: ['pending_verification', 'connected'] })
      .notNull()
      .default('pending_verification'),
    verificationToken: text('verification_token')
      .notNull()
      .default(sql`('svcsv_' || md5(gen_random_uuid()::text))`),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('sites_merchant_idx').on(t.merchantId),
    uniqueIndex('sites_origin_merchant_uidx').on(t.origin, t.merchantId),
    uniqueIndex('sites_connected_origin_uidx')
      .on(t.origin)
      .where(sql`status = 'connected'`),
  ],
);
