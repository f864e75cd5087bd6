import { z } from 'zod';
import type { CheckoutSessionRow } from '../../payments/rows';
import type { TransactionRow } from '../../payments/rows';
import { isFiatCurrency } from '../../domain/currencies';
import { formatCrypto, formatFiat } from '../../domain/money';
import { CANCEL_REASONS } from '../../domain/payment-status';
import { paymentLabels } from '../../domain/payment-labels';
import { assetName, mode, networkName, paymentStatus, railType } from '../closed-values';

// Response shapes, one function each, so every route that returns a session or a
// transaction returns the same fields. Amounts are decimal strings.

export const checkoutUrlFor = (publicBaseUrl: string, id: string) => `${publicBaseUrl}/pay/${id}`;

function fiatAmount(row: { amountMinor: bigint; currency: string }): string {
  if (!isFiatCurrency(row.currency)) throw new Error(`unknown currency ${row.currency}`);
  return formatFiat(row.amountMinor, row.currency);
}

export const checkoutSessionSchema = z
  .object({
    id: z.string().meta({ description: 'The session id (SV_ and 24 base62 characters).', examples: ['SV_4f9a1c2b7d8e6f5a4b3c2d1e'] }),
    externalSessionId: z
      .string()
      .meta({ description: 'The same id, under the name older integrations read.', examples: ['SV_4f9a1c2b7d8e6f5a4b3c2d1e'] }),
    checkoutUrl: z.string().meta({
      description: 'The hosted page: send the customer here.',
      examples: ['https://pay.example.com/pay/SV_4f9a1c2b7d8e6f5a4b3c2d1e'],
    }),
    status: paymentStatus.meta({ examples: ['pending'] }),
    amount: z.string().meta({ description: 'Decimal string with the currency’s decimals.', examples: ['25.00'] }),
    currency: z.string().meta({ examples: ['USD'] }),
    destinationAsset: assetName.meta({ description: 'The stablecoin you are settled in.' }),
    network: networkName,
    mode,
    provider: z
      .string()
      .nullable()
      .meta({
        description: 'The on-ramp the customer pays through; null once the customer paid from their own wallet.',
        examples: ['sandbox'],
      }),
    railType,
    orderId: z
      .string()
      .nullable()
      .meta({ description: 'Your orderId (or merchantOrderId).', examples: ['order-1042'] }),
    locale: z
      .string()
      .nullable()
      .meta({ description: 'The hosted page’s language when you set one.', examples: ['en'] }),
    createdAt: z.string().meta({ description: 'ISO 8601, UTC.' }),
    expiresAt: z.string().nullable().meta({ description: 'ISO 8601, UTC: the session expires then unless it has finished.' }),
  })
  .meta({ description: 'A hosted checkout session.' });

export function checkoutSessionView(s: CheckoutSessionRow, publicBaseUrl: string): z.infer<typeof checkoutSessionSchema> {
  return {
    id: s.id,
    externalSessionId: s.id,
    checkoutUrl: checkoutUrlFor(publicBaseUrl, s.id),
    status: s.status,
    amount: fiatAmount(s),
    currency: s.currency,
    destinationAsset: s.destinationAsset,
    network: s.network,
    mode: s.mode,
    ...paymentLabels(s),
    orderId: s.orderId ?? s.merchantOrderId,
    locale: s.locale,
    createdAt: s.createdAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
  };
}

/** What a customer's browser may see: no merchant references, no metadata, no e-mail. */
export const publicSessionSchema = z.object({
  id: z.string(),
  status: paymentStatus,
  amount: z.string(),
  currency: z.string(),
  destinationAsset: assetName,
  network: networkName,
  merchantName: z.string(),
  expiresAt: z.string(),
});

export function publicSessionView(s: CheckoutSessionRow, merchantName: string): z.infer<typeof publicSessionSchema> {
  return {
    id: s.id,
    status: s.status,
    amount: fiatAmount(s),
    currency: s.currency,
    destinationAsset: s.destinationAsset,
    network: s.network,
    merchantName,
    expiresAt: s.expiresAt.toISOString(),
  };
}

export const paymentSessionSchema = z.object({
  id: z.string(),
  checkoutUrl: z.string(),
  status: paymentStatus,
  /** Why a canceled session was canceled: `customer`, or `link_paid` when another session paid its payment link. */
  cancelReason: z.enum(CANCEL_REASONS).nullable(),
  amount: z.string(),
  currency: z.string(),
  destinationAsset: assetName,
  network: networkName,
  orderId: z.string().nullable(),
  merchantOrderId: z.string().nullable(),
  provider: z.string().nullable(),
  providerPaymentId: z.string().nullable(),
  railType,
  mode,
  countryCode: z.string(),
  customerEmail: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  expiresAt: z.string(),
  completedAt: z.string().nullable(),
});

export function paymentSessionView(s: CheckoutSessionRow, publicBaseUrl: string): z.infer<typeof paymentSessionSchema> {
  return {
    id: s.id,
    checkoutUrl: checkoutUrlFor(publicBaseUrl, s.id),
    status: s.status,
    // Sessions canceled before reasons were kept were all canceled by their customer.
    cancelReason: s.status === 'canceled' ? (s.cancelReason ?? 'customer') : null,
    amount: fiatAmount(s),
    currency: s.currency,
    destinationAsset: s.destinationAsset,
    network: s.network,
    orderId: s.orderId ?? s.merchantOrderId,
    merchantOrderId: s.merchantOrderId,
    ...paymentLabels(s),
    providerPaymentId: s.providerPaymentId,
    mode: s.mode,
    countryCode: s.countryCode,
    customerEmail: s.customerEmail,
    metadata: s.metadata as Record<string, unknown>,
    createdAt: s.createdAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    completedAt: s.completedAt?.toISOString() ?? null,
  };
}

export const transactionSchema = z.object({
  id: z.string(),
  paymentSessionId: z.string(),
  status: paymentStatus,
  sourceAmount: z.string(),
  sourceCurrency: z.string(),
  destinationAsset: assetName,
  network: networkName,
  walletAddress: z.string(),
  grossAmount: z.string().nullable(),
  merchantSettlementAmount: z.string().nullable(),
  platformCommissionAmount: z.string().nullable(),
  commissionBps: z.number().int(),
  provider: z.string().nullable(),
  railType,
  providerPaymentId: z.string().nullable(),
  providerEventId: z.string().nullable(),
  /** The merchant payout's hash and explorer link, null until that payout is confirmed. */
  transactionHash: z.string().nullable(),
  explorerUrl: z.string().nullable(),
  /** The merchant payout that carried this payment's share (GET /api/v1/settlements/{id}), null until one does. */
  payoutId: z
    .string()
    .nullable()
    .meta({ examples: ['po_3Gh8Jk2Lz5Xc7Vb1Nm4Qw9Er'] }),
  /** The inbound transfer into the deposit address that proved the payment (chain-verified payments). */
  depositTransactionHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  completedAt: z.string().nullable(),
  /** 'chain' when completion is proven on chain, 'provider' on networks without a verifier. */
  verification: z.enum(['chain', 'provider']),
});

/**
 * The latest transaction for a payment. Before the provider has reported an outcome
 * there is no row yet; the session's own state stands in, with the settlement fields null.
 */
export function transactionView(s: CheckoutSessionRow, t: TransactionRow | undefined): z.infer<typeof transactionSchema> {
  const micro = (v: bigint | null | undefined) => (v === null || v === undefined ? null : formatCrypto(v));
  return {
    id: s.id,
    paymentSessionId: s.id,
    status: t?.status ?? s.status,
    sourceAmount: fiatAmount(s),
    sourceCurrency: s.currency,
    destinationAsset: s.destinationAsset,
    network: s.network,
    walletAddress: s.walletAddress,
    grossAmount: micro(t?.grossMicro),
    merchantSettlementAmount: micro(t?.merchantSettlementMicro),
    platformCommissionAmount: micro(t?.platformCommissionMicro),
    commissionBps: t?.commissionBps ?? s.commissionBps,
    ...paymentLabels(s),
    providerPaymentId: t?.providerPaymentId ?? s.providerPaymentId,
    providerEventId: t?.providerEventId ?? null,
    transactionHash: t?.transactionHash ?? null,
    explorerUrl: t?.explorerUrl ?? null,
    payoutId: t?.payoutId ?? null,
    depositTransactionHash: t?.depositTransactionHash ?? null,
    failureReason: t?.failureReason ?? null,
    completedAt: t?.completedAt?.toISOString() ?? null,
    verification: s.verification,
  };
}
