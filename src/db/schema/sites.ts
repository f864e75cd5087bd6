import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';

// Plugin connections (spec §2.7): one per website, keyed by its normalised origin. Reconnecting
// updates the row and keeps its id and webhook secret.
export const sites = pgTable(
  'sites',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    origin: text('origin').notNull().unique(),
    siteUrl: text('site_url').notNull(),
    callbackUrl: text('callback_url').notNull(),
    platform: text('platform', { enum: ['woocommerce', 'shopify', 'magento', 'prestashop', 'opencart', 'custom'] }).notNull(),
    pluginVersion: text('plugin_version').notNull(),
    webhookSecretEncrypted: text('webhook_secret_encrypted').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sites_merchant_idx').on(t.merchantId)],
);
