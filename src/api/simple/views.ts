import type { SimpleOrderRow } from '../../payments/rows';
import { formatCrypto, formatFiatText } from '../../domain/money';

// Shapes of the simple API. Amounts are exact decimal strings inside; the API's numeric fields
// (fiat_amount, amount_in_usd, received_usd) are Number()-ed from those strings here, at the edge.

const fiatText = (o: Pick<SimpleOrderRow, 'fiatAmountMinor' | 'fiatCurrency'>) => formatFiatText(o.fiatAmountMinor, o.fiatCurrency);

/** GET /api/transaction: live status and amounts for reconciliation. */
export function transactionView(o: SimpleOrderRow) {
  return {
    transaction_code: o.transactionCode,
    status: o.status,
    external_reference: o.externalReference,
    fiat_amount: Number(fiatText(o)),
    fiat_currency: o.fiatCurrency,
    amount_in_usd: Number(formatCrypto(o.amountUsdMicro)),
    received_usd: o.receivedMicro === null ? null : Number(formatCrypto(o.receivedMicro)),
    // Deducted from the payout to wallet_address, for the gas it costs.
    network_fee: Number(formatCrypto(o.networkFeeMicro)),
    wallet_address: o.walletAddress,
    wallet_currency: o.walletCurrency,
    wallet_network: o.walletNetwork.toUpperCase(),
    payment_method: o.paymentMethod,
    payout_dispatched: o.payoutDispatched,
    // "chain" when the order settles only from a confirmed transfer to its own deposit address.
    verification: o.verification,
    transaction_hash: o.transactionHash,
    explorer_url: o.explorerUrl,
    success_url: o.successUrl,
    cancel_url: o.cancelUrl,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
    expires_at: o.expiresAt.toISOString(),
    settled_at: o.settledAt?.toISOString() ?? null,
  };
}

/** The operator's view: everything, with decimal strings, and the webhook's one attempt. */
export function adminOrderView(o: SimpleOrderRow) {
  return {
    transactionCode: o.transactionCode,
    status: o.status,
    externalReference: o.externalReference,
    fiatAmount: fiatText(o),
    fiatCurrency: o.fiatCurrency,
    amountUsd: formatCrypto(o.amountUsdMicro),
    receivedUsd: o.receivedMicro === null ? null : formatCrypto(o.receivedMicro),
    networkFee: formatCrypto(o.networkFeeMicro),
    walletAddress: o.walletAddress,
    walletCurrency: o.walletCurrency,
    walletNetwork: o.walletNetwork,
    paymentMethod: o.paymentMethod,
    provider: o.provider,
    providerPaymentId: o.providerPaymentId,
    deposit: o.depositAddress
      ? {
          address: o.depositAddress,
          asset: o.depositAsset,
          network: o.depositNetwork,
          amount: o.depositAmountMicro === null ? null : formatCrypto(o.depositAmountMicro),
        }
      : null,
    verification: o.verification,
    chainDepositAddress: o.chainDepositAddress,
    expectedGross: o.expectedGrossMicro === null ? null : formatCrypto(o.expectedGrossMicro),
    depositTransactionHash: o.depositTransactionHash,
    transactionHash: o.transactionHash,
    explorerUrl: o.explorerUrl,
    payoutDispatched: o.payoutDispatched,
    failureReason: o.failureReason,
    webhookUrl: o.webhookUrl,
    webhook: {
      status: o.webhookStatus,
      attempts: o.webhookAttemptedAt
        ? [
            {
              at: o.webhookAttemptedAt.toISOString(),
              statusCode: o.webhookStatusCode,
              durationMs: o.webhookDurationMs,
              error: o.webhookError,
            },
          ]
        : [],
    },
    successUrl: o.successUrl,
    cancelUrl: o.cancelUrl,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    expiresAt: o.expiresAt.toISOString(),
    settledAt: o.settledAt?.toISOString() ?? null,
  };
}
