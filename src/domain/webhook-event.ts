import { formatCrypto, formatFiatText } from './money';
import { eventSourceOf } from './payment-labels';
import type { PaymentStatus } from './payment-status';
import { TEST_EVENT_TYPE } from './webhook-event-types';

// The v1 event body Built once per event and stored serialised, so every delivery and
// every retry sends the same bytes; amounts are decimal strings.

/** The body of a dashboard test event (TEST_EVENT_TYPE): no payment, the endpoint it tests. */
export const testEventBody = (e: { eventId: string; merchantId: string; endpointId: string; createdAt: Date }) => ({
  eventId: e.eventId,
  event: TEST_EVENT_TYPE,
  merchantId: e.merchantId,
  endpointId: e.endpointId,
  createdAt: e.createdAt.toISOString(),
});

/** Plugin order-status hint: the WooCommerce status a shop should set for each payment status. */
export const WOO_ORDER_STATUS: Record<PaymentStatus, string> = {
  pending: 'pending',
  processing: 'on-hold',
  completed: 'processing',
  failed: 'failed',
  expired: 'cancelled',
  canceled: 'cancelled',
};

export interface PaymentEventInput {
  eventId: string;
  /** Another event than the status's own (`payment.settled`, which carries the completed status). */
  event?: 'payment.settled';
  status: PaymentStatus;
  merchantId: string;
  paymentId: string;
  /** The session's labels (payment-labels.ts): null and crypto_transfer for a wallet payment. */
  provider: string | null;
  providerPaymentId: string | null;
  railType: string;
  amount: string;
  currency: string;
  destinationAsset: string;
  network: string;
  walletAddress: string;
  orderId: string | null;
  createdAt: Date;
  settlement?: {
    grossAmount: string;
    merchantSettlementAmount: string;
    platformCommissionAmount: string;
    transactionHash: string | null;
    explorerUrl: string | null;
  };
}

export function paymentEventBody(e: PaymentEventInput): Record<string, unknown> {
  return {
    event: e.event ?? `payment.${e.status}`,
    eventId: e.eventId,
    eventSource: eventSourceOf(e.status, e.railType, e.event),
    merchantId: e.merchantId,
    sessionId: e.paymentId,
    transactionId: e.paymentId,
    provider: e.provider,
    externalSessionId: e.paymentId,
    externalTransactionId: e.providerPaymentId ?? '',
    railType: e.railType,
    status: e.status,
    amount: e.amount,
    currency: e.currency,
    destinationAsset: e.destinationAsset,
    network: e.network,
    walletAddress: e.walletAddress,
    orderId: e.orderId ?? '',
    wooCommerce: { orderStatus: WOO_ORDER_STATUS[e.status] },
    ...(e.settlement ?? {}),
    createdAt: e.createdAt.toISOString(),
  };
}

/** What the simple API's webhook tells about a settled order. */
export interface SettledOrder {
  transactionCode: string;
  externalReference: string | null;
  fiatAmountMinor: bigint;
  fiatCurrency: string;
  receivedMicro: bigint | null;
  walletAddress: string;
  walletCurrency: string;
  walletNetwork: string;
  payoutDispatched: boolean;
}

/** The simple API's transaction.settled body (docs/api.md), field for field and type for type: its numbers come from exact decimal text. */
export function settledWebhookBody(o: SettledOrder, at: Date) {
  return {
    event: 'transaction.settled' as const,
    transaction_code: o.transactionCode,
    // Always a string: empty when the checkout named none.
    external_reference: o.externalReference ?? '',
    fiat_amount: Number(formatFiatText(o.fiatAmountMinor, o.fiatCurrency)),
    fiat_currency: o.fiatCurrency,
    received_usd: Number(formatCrypto(o.receivedMicro ?? 0n)),
    wallet_address: o.walletAddress,
    wallet_currency: o.walletCurrency,
    wallet_network: o.walletNetwork.toUpperCase(),
    payout_dispatched: o.payoutDispatched,
    timestamp: Math.floor(at.getTime() / 1000),
  };
}
