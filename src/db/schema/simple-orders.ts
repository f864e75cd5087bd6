import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Orders of the simple API (docs/api.md): no merchant, no API key; the customer's own wallet is the
// destination. Money is bigint: fiat in minor units, stablecoin/USD in micro-units.
export const simpleOrders = pgTable(
  'simple_orders',
  {
    transactionCode: text('transaction_code').primaryKey(),
    status: text('status', { enum: ['pending', 'processing', 'settled', 'failed', 'expired'] })
      .notNull()
      .default('pending'),
    fiatAmountMinor: bigint('fiat_amount_minor', { mode: 'bigint' }).notNull(),
    fiatCurrency: text('fiat_currency').notNull(),
    // The fiat's USD value at creation (sandbox rates), 6 decimals.
    amountUsdMicro: bigint('amount_usd_micro', { mode: 'bigint' }).notNull(),
    walletAddress: text('wallet_address').notNull(),
    walletCurrency: text('wallet_currency').notNull(),
    // Lowercase internally; the simple API shows it uppercase.
    walletNetwork: text('wallet_network').notNull(),
    externalReference: text('external_reference'),
    webhookUrl: text('webhook_url'),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    // The rail the customer chose last (a payment_options slug).
    paymentMethod: text('payment_method'),
    provider: text('provider'),
    providerPaymentId: text('provider_payment_id'),
    // 'chain' when the customer's network has a verifier. The provider then delivers
    // to the order's own address (chainDepositAddress), and the order settles only from confirmed
    // credits of it of at least expectedGrossMicro; the customer's wallet gets the payout.
    verification: text('verification', { enum: ['chain', 'provider'] })
      .notNull()
      .default('provider'),
    chainDepositAddress: text('chain_deposit_address'),
    // G: the provider's quote (fiat rail) or the amount it forwards (crypto rail) when the customer
    // chose the rail; the first one taken stands.
    expectedGrossMicro: bigint('expected_gross_micro', { mode: 'bigint' }),
    // The network fee this order's payout is charged (SIMPLE_ORDER_NETWORK_FEES when
    // it was opened; 0 when nothing is paid out by us), deducted from the payout and sent to the treasury.
    networkFeeMicro: bigint('network_fee_micro', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    // The inbound transfer that settled a chain-verified order (its gross is receivedMicro).
    depositTransactionHash: text('deposit_transaction_hash'),
    // A crypto rail's provider address, where the customer sends (not ours: the provider forwards).
    depositAddress: text('deposit_address'),
    depositAsset: text('deposit_asset'),
    depositNetwork: text('deposit_network'),
    depositAmountMicro: bigint('deposit_amount_micro', { mode: 'bigint' }),
    receivedMicro: bigint('received_micro', { mode: 'bigint' }),
    transactionHash: text('transaction_hash'),
    explorerUrl: text('explorer_url'),
    payoutDispatched: boolean('payout_dispatched').notNull().default(false),
    failureReason: text('failure_reason'),
    // Set for an operator when money arrived that the order could not accept (e.g. after it ended).
    reviewFlag: text('review_flag'),
    reviewNote: text('review_note'),
    // The one transaction.settled delivery (one attempt, 8 s, no retry, logged).
    webhookStatus: text('webhook_status', { enum: ['none', 'pending', 'delivered', 'failed'] })
      .notNull()
      .default('none'),
    webhookAttemptedAt: timestamp('webhook_attempted_at', { withTimezone: true }),
    webhookStatusCode: integer('webhook_status_code'),
    webhookDurationMs: integer('webhook_duration_ms'),
    webhookError: text('webhook_error'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (t) => [
    index('simple_orders_created_idx').on(t.createdAt),
    // As checkout_sessions_updated_idx: the chain watcher's reads between full reads.
    index('simple_orders_updated_idx').on(t.updatedAt),
    index('simple_orders_review_idx')
      .on(t.reviewFlag)
      .where(sql`${t.reviewFlag} is not null`),
    check('simple_orders_amount_check', sql`${t.fiatAmountMinor} > 0`),
  ],
);
