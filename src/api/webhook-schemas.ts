import { z } from 'zod';
import { EXCEPTION_KINDS } from '../domain/exceptions';
import { assetName, networkName, paymentStatus, railType } from './closed-values';

// The bodies we POST to merchants, as documented in the OpenAPI `webhooks` section. Built by src/domain/webhook-event.ts; a test checks a real delivery against these.

const decimal = z
  .string()
  .regex(/^\d+(\.\d+)?$/)
  .describe('A decimal string');

export const paymentEventSchema = z.object({
  event: z.enum(['payment.processing', 'payment.completed', 'payment.failed', 'payment.expired', 'payment.canceled', 'payment.settled']),
  eventId: z.string().describe('evt_…; process each event once'),
  eventSource: z
    .string()
    .describe('provider_webhook, chain (a wallet payment completed), payout, checkout, session_expiry or hosted_checkout'),
  merchantId: z.string(),
  sessionId: z.string().describe('The canonical payment id (SV_…)'),
  transactionId: z.string(),
  provider: z.string().nullable().describe('The on-ramp that took the payment; null when the customer paid from their own wallet'),
  externalSessionId: z.string(),
  externalTransactionId: z.string().describe('The provider’s transaction reference, empty before it has one'),
  railType,
  status: paymentStatus.meta({ description: 'The session’s status after the event (payment.settled: completed).' }),
  amount: decimal,
  currency: z.string(),
  destinationAsset: assetName,
  network: networkName,
  walletAddress: z.string(),
  orderId: z.string(),
  wooCommerce: z.object({ orderStatus: z.string() }).describe('Plugin order-status hint'),
  grossAmount: decimal.optional(),
  merchantSettlementAmount: decimal.optional(),
  platformCommissionAmount: decimal.optional(),
  transactionHash: z.string().nullable().optional(),
  explorerUrl: z.string().nullable().optional(),
  createdAt: z.string().describe('ISO 8601 UTC'),
});

/** One per exception (money that arrived late or wrong), delivered like the events above. */
export const paymentExceptionEventSchema = z.object({
  event: z.literal('payment.exception'),
  eventId: z.string().describe('evt_…; process each event once'),
  eventSource: z.literal('exception'),
  merchantId: z.string(),
  sessionId: z.string().describe('The canonical payment id (SV_…) the money was meant for'),
  transactionId: z.string(),
  orderId: z.string(),
  exceptionId: z.string().describe('exc_…; the operator resolves it (accept or refund)'),
  kind: z.enum(EXCEPTION_KINDS),
  status: z.enum(['open', 'accepted', 'refunded']),
  amount: decimal.describe('Stablecoin amount, 6 decimals'),
  destinationAsset: assetName,
  network: networkName,
  references: z.record(z.string(), z.unknown()).describe('Transaction hash, provider ids, log keys: where the money is'),
  createdAt: z.string().describe('ISO 8601 UTC'),
});

/** An exception's money sent back on chain; once per exception, when the transfer is confirmed. */
export const paymentRefundedEventSchema = paymentExceptionEventSchema.extend({
  event: z.literal('payment.refunded'),
  status: z.literal('refunded'),
  refund: z.object({
    address: z.string().describe('Where the money went (EIP-55)'),
    amount: decimal.describe('Stablecoin amount, 6 decimals'),
    transactionHash: z.string().describe('The refund transfer, confirmed'),
    explorerUrl: z.string().nullable(),
  }),
});

/**
 * A refund of a completed payment (wholly or partly, sent from the platform's
 * treasury), once per refund when its transfer is confirmed: two partial refunds are two events.
 */
export const completedPaymentRefundedEventSchema = z.object({
  event: z.literal('payment.refunded'),
  eventId: z.string().describe('evt_…; process each event once'),
  eventSource: z.literal('refund'),
  merchantId: z.string(),
  sessionId: z.string().describe('The canonical payment id (SV_…)'),
  transactionId: z.string(),
  orderId: z.string(),
  refundId: z.string().describe('rf_…; one event per refund'),
  status: z.literal('refunded'),
  amount: decimal.describe('This refund, stablecoin, 6 decimals'),
  grossAmount: decimal.describe('What the customer paid'),
  refundedAmount: decimal.describe('What the payment has had refunded so far, this refund included'),
  destinationAsset: assetName,
  network: networkName,
  refund: z.object({
    address: z.string().describe('Where the money went (EIP-55)'),
    amount: decimal.describe('Stablecoin amount, 6 decimals'),
    transactionHash: z.string().describe('The refund transfer, confirmed'),
    explorerUrl: z.string().nullable(),
  }),
  createdAt: z.string().describe('ISO 8601 UTC'),
});

export const transactionSettledSchema = z.object({
  event: z.literal('transaction.settled'),
  transaction_code: z.string().describe('UUID of the simple-API order'),
  external_reference: z.string(),
  fiat_amount: z.number(),
  fiat_currency: z.string(),
  received_usd: z.number(),
  wallet_address: z.string(),
  wallet_currency: z.string(),
  wallet_network: z.string(),
  payout_dispatched: z.boolean(),
  timestamp: z.number().int().describe('Unix seconds'),
});

/** The test event a merchant sends to one endpoint from the dashboard: no payment, the endpoint it tests. */
export const webhookTestEventSchema = z.object({
  event: z.literal('webhook.test'),
  eventId: z.string().describe('evt_…; process each event once'),
  merchantId: z.string(),
  endpointId: z.string().meta({ description: 'The endpoint (whe_…) the test was sent to', example: 'whe_6Nb9Vc2Xz5Lk8Jh' }),
  createdAt: z.string().describe('ISO 8601 UTC'),
});

export const WEBHOOK_SCHEMAS = {
  'payment.event': paymentEventSchema,
  'payment.exception': paymentExceptionEventSchema,
  // An exception's money sent back (exceptionId), or a completed payment's refund (refundId).
  'payment.refunded': z.union([paymentRefundedEventSchema, completedPaymentRefundedEventSchema]),
  'webhook.test': webhookTestEventSchema,
  'transaction.settled': transactionSettledSchema,
};
