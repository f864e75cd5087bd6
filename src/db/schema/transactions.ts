import { sql } from 'drizzle-orm';
import { bigint, bigserial, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { checkoutSessions } from './checkout-sessions';

// One row per canonical payment id (unique): a retried or replayed completion cannot write a second.
// The internal row id is never exposed; lookups go by payment id.
export const transactions = pgTable(
  'transactions',
  {
    rowId: bigserial('row_id', { mode: 'bigint' }).primaryKey(),
    paymentId: text('payment_id')
      .notNull()
      .unique()
      .references(() => checkoutSessions.id),
    merchantId: text('merchant_id').notNull(),
    status: text('status', { enum: ['completed', 'failed'] }).notNull(),
    sourceAmountMinor: bigint('source_amount_minor', { mode: 'bigint' }).notNull(),
    sourceCurrency: text('source_currency').notNull(),
    destinationAsset: text('destination_asset').notNull(),
    network: text('network').notNull(),
    walletAddress: text('wallet_address').notNull(),
    // Stablecoin amounts in micro-units (6 decimals).
    grossMicro: bigint('gross_micro', { mode: 'bigint' }),
    merchantSettlementMicro: bigint('merchant_settlement_micro', { mode: 'bigint' }),
    platformCommissionMicro: bigint('platform_commission_micro', { mode: 'bigint' }),
    commissionBps: integer('commission_bps').notNull(),
    // The on-ramp that took the payment; null for a wallet payment (domain/payment-labels.ts).
    provider: text('provider'),
    providerPaymentId: text('provider_payment_id'),
    providerEventId: text('provider_event_id').notNull(),
    transactionHash: text('transaction_hash'),
    explorerUrl: text('explorer_url'),
    // The merchant payout that carried this payment's share (its transaction is transaction_hash).
    payoutId: text('payout_id'),
    // The inbound transfer into the deposit address that proved the payment (chain-verified payments).
    depositTransactionHash: text('deposit_transaction_hash'),
    failureReason: text('failure_reason'),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // A merchant's volume by day (the dashboard's home).
    index('transactions_merchant_completed_idx')
      .on(t.merchantId, t.completedAt)
      .where(sql`${t.status} = 'completed'`),
    // The completed payments a settlement run may still have to hold, sweep or pay (no merchant
    // payout carried them yet): its queries start here, so a run reads the payments in flight, not
    // every one ever.
    index('transactions_unsettled_idx')
      .on(t.network)
      .where(sql`${t.status} = 'completed' and ${t.payoutId} is null`),
    // The split adds up to the gross amount, to the last digit, for every row.
    check(
      'transactions_split_check',
      sql`${t.status} <> 'completed' or (${t.grossMicro} is not null and ${t.merchantSettlementMicro} + ${t.platformCommissionMicro} = ${t.grossMicro} and ${t.platformCommissionMicro} >= 0 and ${t.merchantSettlementMicro} >= 0)`,
    ),
  ],
);
