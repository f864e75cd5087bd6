import { sql } from 'drizzle-orm';
import { index, integer, pgSequence, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Every payment gets its own deposit address (docs/settlement.md): the network’s sweeper forwarder of its
// index (a CREATE2 address, docs/settlement.md). The index comes from a sequence: nextval never hands out the
// same value twice, even to transactions that roll back, so two payments can never share an address,
// and allocation takes no lock. A process takes its indexes a batch at a time; one it never used
// (rolled back, or it stopped) leaves a gap, which costs nothing: every index in use is in this
// table, so recovery never has to scan for a wallet's gap limit.
export const depositAddressIndex = pgSequence('deposit_address_index', {
  startWith: 0,
  minValue: 0,
  // The last non-hardened BIP-32 index.
  maxValue: 2147483647,
  increment: 1,
  cycle: false,
});

export const depositAddresses = pgTable(
  'deposit_addresses',
  {
    derivationIndex: integer('derivation_index').primaryKey(),
    // EIP-55 checksummed, as derived; unique so that a log to it credits one payment only.
    address: text('address').notNull().unique(),
    network: text('network').notNull(),
    // The payment it belongs to (SV_… session id or a simple order's transaction code), or, for a
    // merchant's top-up address, `topup:<merchant id>:<network>`.
    paymentReference: text('payment_reference').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The watcher reads every top-up address of its network; these are few among the payments' many.
    index('deposit_addresses_top_up_idx')
      .on(t.network, t.createdAt)
      .where(sql`${t.paymentReference} like 'topup:%'`),
  ],
);
