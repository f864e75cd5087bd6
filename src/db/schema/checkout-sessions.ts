import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { CANCEL_REASONS } from '../../domain/payment-status';
import { merchants } from './merchants';

export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    status: text('status', { enum: ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'] })
      .notNull()
      .default('pending'),
    mode: text('mode', { enum: ['live', 'test'] })
      .notNull()
      .default('live'),
    // Where the session came from: the v1 API, a plugin, a payment link.
    source: text('source', { enum: ['api', 'plugin', 'payment_link'] })
      .notNull()
      .default('api'),
    amountMinor: bigint('amount_minor', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    countryCode: text('country_code').notNull(),
    destinationAsset: text('destination_asset').notNull(),
    network: text('network').notNull(),
    // The merchant's settlement wallet (payouts go there later); the customer's money arrives at depositAddress.
    walletAddress: text('wallet_address').notNull(),
    // 'chain' when the network has a verifier (completion needs a confirmed credit of
    // depositAddress), 'provider' when only the provider's word is available (solana, tron, no RPC).
    verification: text('verification', { enum: ['chain', 'provider'] })
      .notNull()
      .default('provider'),
    depositAddress: text('deposit_address'),
    // The expected gross G in micro units: the provider's quote when the customer pressed Pay, or the
    // amount shown on the direct rail; the first one taken stands.
    expectedGrossMicro: bigint('expected_gross_micro', { mode: 'bigint' }),
    // Commission agreed when the session was created, so a later change applies to new sessions only.
    commissionBps: integer('commission_bps').notNull(),
    // The on-ramp the session is routed to (its quotes, its Pay button, whose callbacks it owns).
    provider: text('provider').notNull(),
    // Fiat_to_crypto until a completion proves otherwise; crypto_transfer once money
    // from the customer's own wallet completed it. Labels everywhere derive from it (payment-labels.ts).
    railType: text('rail_type').notNull(),
    customerEmail: text('customer_email'),
    orderId: text('order_id'),
    merchantOrderId: text('merchant_order_id'),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    // The hosted page's language when the merchant chose one; otherwise the browser's Accept-Language decides.
    locale: text('locale', { enum: ['en', 'de', 'fr', 'es', 'pt'] }),
    webhookUrl: text('webhook_url'),
    metadata: jsonb('metadata').notNull().default({}),
    providerPaymentId: text('provider_payment_id'),
    // When the customer first pressed Pay (the provider payment asked for): the merchant's timeline.
    payPressedAt: timestamp('pay_pressed_at', { withTimezone: true }),
    // When the customer last pressed Pay: the provider attempt that, for a link's session, holds the
    // link until the provider declines it or the session ends (domain/link-payer.ts).
    payAttemptAt: timestamp('pay_attempt_at', { withTimezone: true }),
    // When the direct rail's deposit instructions were first handed out: from then on money may
    // arrive at any moment until the session ends, so a link's session holds its link until then.
    depositShownAt: timestamp('deposit_shown_at', { withTimezone: true }),
    // Why a canceled session ended: the customer's Cancel, or another session of its
    // payment link paid the link. Null for a session never canceled; kept if late money of a canceled one is accepted.
    cancelReason: text('cancel_reason', { enum: CANCEL_REASONS }),
    // Where the customer asked money off the happy path (over, under, late) to go back, given
    // on the page (EIP-55, checked as an operator's refund address is); the refund's default.
    refundAddress: text('refund_address'),
    // Where the customer asked, on the page, for a receipt and refund notices (optional; the
    // merchant's customerEmail above is the merchant's to use, and is only the form's first value).
    receiptEmail: text('receipt_email'),
    // The language of the page it was given on: the mails' language.
    receiptLocale: text('receipt_locale'),
    // Plugin sessions: the connected site whose endpoint and secret get the deliveries.
    siteId: text('site_id'),
    orderKey: text('order_key'),
    // Payment-link sessions: the link being paid.
    paymentLinkId: text('payment_link_id'),
    // Set for an operator when money arrived that the session could not accept (e.g. after expiry).
    reviewFlag: text('review_flag'),
    reviewNote: text('review_note'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    // The merchant's payment list: newest first, paged by (created_at, id); by status; the
    // search box's order ids and email (db/queries/merchant-payments.ts). The status and email indexes
    // end in (created_at, id), the list's order: a page of one status or one email is read from them
    // in order and stops when full, whatever the planner guessed of how many rows match.
    index('checkout_sessions_merchant_idx').on(t.merchantId, t.createdAt, t.id),
    index('checkout_sessions_merchant_status_idx').on(t.merchantId, t.status, t.createdAt, t.id),
    index('checkout_sessions_merchant_order_idx')
      .on(t.merchantId, t.orderId)
      .where(sql`${t.orderId} is not null`),
    index('checkout_sessions_merchant_order_key_idx')
      .on(t.merchantId, t.merchantOrderId)
      .where(sql`${t.merchantOrderId} is not null`),
    index('checkout_sessions_merchant_email_idx')
      .on(t.merchantId, sql`lower(${t.customerEmail})`, t.createdAt, t.id)
      .where(sql`${t.customerEmail} is not null`),
    // A payment link's sessions (the dashboard's link page and its counts).
    index('checkout_sessions_payment_link_idx')
      .on(t.paymentLinkId, t.createdAt)
      .where(sql`${t.paymentLinkId} is not null`),
    // The chain watcher's reads between full reads (listOpenDepositAddressesChangedSince): the rows changed lately.
    index('checkout_sessions_updated_idx').on(t.updatedAt),
    index('checkout_sessions_review_idx')
      .on(t.reviewFlag)
      .where(sql`${t.reviewFlag} is not null`),
    check('checkout_sessions_amount_check', sql`${t.amountMinor} > 0`),
    // Not tied to the status: a canceled session whose late money an operator accepts becomes
    // completed, and why it was canceled stays part of its story (the lookup shows it while canceled).
    check('checkout_sessions_cancel_reason_check', sql`${t.cancelReason} is null or ${t.cancelReason} in ('customer', 'link_paid')`),
  ],
);
