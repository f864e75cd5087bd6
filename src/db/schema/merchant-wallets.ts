import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';

export const merchantWallets = pgTable(
  'merchant_wallets',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    asset: text('asset').notNull(),
    network: text('network').notNull(),
    address: text('address').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.asset, t.network] })],
);
