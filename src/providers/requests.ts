import type { FiatCurrency } from '../domain/currencies';
import { formatCrypto, formatFiat } from '../domain/money';
import { CURRENCY_COUNTRY } from '../domain/rails';
import type { ProviderDepositRequest, ProviderPaymentRequest } from './types';

// What we ask a provider for, built in one place for every caller (the API's Pay, and the activities
// kept for runs of the previous version), from the payment's stored terms.

export interface Addresses {
  callbackUrl: string;
  returnUrl: string;
}

export function sessionPaymentRequest(
  s: {
    id: string;
    amountMinor: bigint;
    currency: FiatCurrency;
    destinationAsset: string;
    network: string;
    walletAddress: string;
    countryCode: string;
    customerEmail: string | null;
  },
  urls: Addresses,
): ProviderPaymentRequest {
  return {
    reference: s.id,
    sourceAmount: formatFiat(s.amountMinor, s.currency),
    sourceCurrency: s.currency,
    destinationAsset: s.destinationAsset,
    network: s.network,
    walletAddress: s.walletAddress,
    countryCode: s.countryCode,
    customerEmail: s.customerEmail ?? undefined,
    ...urls,
  };
}

interface OrderTerms {
  transactionCode: string;
  fiatAmountMinor: bigint;
  fiatCurrency: FiatCurrency;
  amountUsdMicro: bigint;
  walletAddress: string;
  walletCurrency: string;
  walletNetwork: string;
}

export function orderPaymentRequest(o: OrderTerms, urls: Addresses): ProviderPaymentRequest {
  return {
    reference: o.transactionCode,
    sourceAmount: formatFiat(o.fiatAmountMinor, o.fiatCurrency),
    sourceCurrency: o.fiatCurrency,
    destinationAsset: o.walletCurrency,
    network: o.walletNetwork,
    walletAddress: o.walletAddress,
    countryCode: CURRENCY_COUNTRY[o.fiatCurrency],
    ...urls,
  };
}

export function orderDepositRequest(o: OrderTerms, rail: { asset: string; network: string }, callbackUrl: string): ProviderDepositRequest {
  return {
    reference: o.transactionCode,
    asset: rail.asset,
    network: rail.network,
    amount: formatCrypto(o.amountUsdMicro),
    destinationAsset: o.walletCurrency,
    destinationNetwork: o.walletNetwork,
    walletAddress: o.walletAddress,
    callbackUrl,
  };
}
