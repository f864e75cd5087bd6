import { bigserial, index, integer, numeric, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

// Every movement of money is a posting of several lines whose amounts sum to
// zero per (asset, network): debits positive, credits negative. Stablecoins in micro units, native
// coin in wei (numeric: wei outgrows bigint). The balance rule is enforced by a deferred constraint
// trigger (custom migration), checked at commit, so a posting is written line by line inside one
// transaction and an unbalanced one never commits. Lines are never updated or deleted.
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'bigint' }).primaryKey(),
    // What caused the posting, unique per cause (`completion:SV_…`, `payout:po_…`, `fee:po_…`), so a
    // retried activity cannot post twice.
    postingId: text('posting_id').notNull(),
    line: integer('line').notNull(),
    // `deposit:<address>`, `treasury:<address>`, `merchant:<merchant id>:<pending|available|reserved|outgoing>`,
    // `commission_revenue`, `gas_expense` and the rest of src/domain/ledger.ts and src/domain/balances.ts.
    account: text('account').notNull(),
    asset: text('asset').notNull(),
    network: text('network').notNull(),
    amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
    paymentId: text('payment_id'),
    txHash: text('tx_hash'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('ledger_entries_posting_line_unique').on(t.postingId, t.line),
    index('ledger_entries_account_idx').on(t.account, t.asset, t.network),
    index('ledger_entries_payment_idx').on(t.paymentId),
  ],
);
