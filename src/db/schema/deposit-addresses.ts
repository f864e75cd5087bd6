import { integer, pgSequence, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Decisions §11: every payment gets its own deposit address, derived from SETTLEMENT_MNEMONIC at
// m/44'/60'/1'/0/<derivation_index>. The index comes from a sequence: nextval never hands out the
// same value twice, even to transactions that roll back, so two payments can never share an address,
// and allocation takes no lock. A rolled-back allocation leaves a gap, which costs nothing: every
// index in use is in this table, so recovery never has to scan for a wallet's gap limit.
export const depositAddressIndex = pgSequence('deposit_address_index', {
  startWith: 0,
  minValue: 0,
  // The last non-hardened BIP-32 index.
  maxValue: 2147483647,
  increment: 1,
  cycle: false,
});

export const depositAddresses = pgTable('deposit_addresses', {
  derivationIndex: integer('derivation_index').primaryKey(),
  // EIP-55 checksummed, as derived; unique so that a log to it credits one payment only.
  address: text('address').notNull().unique(),
  network: text('network').notNull(),
  // The payment it belongs to (SV_… session id or a simple order's transaction code).
  paymentReference: text('payment_reference').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

// Issue 32: addresses derived ahead of need, in batches, by the worker (payments/deposit-address-pool.ts):
// the API takes one per chain-verified payment inside the payment's own insert (take_deposit_address,
// a function of the migration that made this table: it deletes the pool row with SKIP LOCKED and
// writes its deposit_addresses row), so a creation does no elliptic-curve work and no extra round
// trip. A pool row is an index of the same sequence: deleted by exactly one taker, never reused.
export const depositAddressPool = pgTable('deposit_address_pool', {
  derivationIndex: integer('derivation_index').primaryKey(),
  address: text('address').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
