import { bigint, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

// A confirmed ERC-20 Transfer log into a deposit address credits one payment only.
// The key (network, transaction hash, log index) is the primary key, so a log offered to a second
// payment (or twice to the same one) is refused by Postgres whatever the callers do. A log whose
// block leaves the canonical chain is marked `removed`, never deleted; mined again it is re-credited
// to the same payment.
export const chainCredits = pgTable(
  'chain_credits',
  {
    network: text('network').notNull(),
    // Lowercase 0x hash.
    transactionHash: text('transaction_hash').notNull(),
    logIndex: integer('log_index').notNull(),
    paymentId: text('payment_id').notNull(),
    // Null: a token contract this deployment does not configure.
    asset: text('asset'),
    token: text('token').notNull(),
    fromAddress: text('from_address').notNull(),
    toAddress: text('to_address').notNull(),
    amountMicro: bigint('amount_micro', { mode: 'bigint' }).notNull(),
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    blockHash: text('block_hash').notNull(),
    // credited: counts for its payment; held: the payment's token, but an exception's money (late,
    // duplicate); wrong_asset and dust: recorded at the address, never part of any payment's money
    // (domain/arrivals.ts); removed: its block left the canonical chain.
    state: text('state', { enum: ['credited', 'held', 'wrong_asset', 'dust', 'removed'] })
      .notNull()
      .default('credited'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.network, t.transactionHash, t.logIndex] }),
    // A merchant searching their payments by a deposit's hash.
    index('chain_credits_transaction_hash_idx').on(t.transactionHash),
    // Every credit reads its payment's credits under the payment's lock: without it, a scan of them all.
    index('chain_credits_payment_idx').on(t.paymentId),
  ],
);

// Where each network's watcher has read up to (its WatchCursor as JSON), so a restarted worker
// resumes where the last one stopped instead of missing the blocks mined meanwhile.
export const chainCursors = pgTable('chain_cursors', {
  network: text('network').primaryKey(),
  cursor: text('cursor').notNull(),
  // Where the last scan stood (head − confirmedThrough is the watcher's lag, read by /metrics); null
  // until the first scan.
  head: bigint('head', { mode: 'bigint' }),
  confirmedThrough: bigint('confirmed_through', { mode: 'bigint' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
