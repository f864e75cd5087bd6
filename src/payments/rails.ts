import type { Asset, Network } from '../domain/assets';
import type { FiatCurrency } from '../domain/currencies';
import { AppError } from '../domain/errors';
import { formatCrypto, formatFiat, parseCrypto } from '../domain/money';
import { CRYPTO_RAILS, CURRENCY_COUNTRY, FIAT_RAILS } from '../domain/rails';
import type { ProviderRegistry } from '../providers/registry';
import type { ProviderAdapter } from '../providers/types';

export function fiatProvider(providers: ProviderRegistry, currency: FiatCurrency): ProviderAdapter | undefined {
  return providers.route(CURRENCY_COUNTRY[currency], currency);
}

/**
 * The fiat amount's USD value in micro-units, from the provider's own quote (a stablecoin is taken at
 * 1 USD): the price the customer would meet on the fiat rail is the one the crypto rails ask for.
 */
export async function usdValue(adapter: ProviderAdapter, fiatMinor: bigint, currency: FiatCurrency): Promise<bigint> {
  try {
    const quote = await adapter.quote({
      sourceAmount: formatFiat(fiatMinor, currency),
      sourceCurrency: currency,
      destinationAsset: 'USDC',
      network: 'polygon',
    });
    return parseCrypto(quote.destinationAmount);
  } catch {
    throw new AppError('Unavailable', 'The payment provider cannot price this amount right now; please retry in a moment.');
  }
}

export interface PaymentOption {
  slug: string;
  type: 'fiat' | 'crypto';
  name: string;
  /** What the customer pays: fiat with its decimals, crypto with 6. */
  amount: string;
  currency: string;
  network?: string;
  /** Fiat rails: the stablecoin the provider quotes to deliver. */
  receive_amount?: string;
  receive_currency?: string;
}

/**
 * Rails for an amount. Fiat rails carry the provider's quote for the asset the customer receives;
 * crypto rails ask for the USD value (the order's, once it exists). When the provider cannot quote
 * (unreachable), the rails that need the quote are left out.
 */
export async function paymentOptions(
  providers: ProviderRegistry,
  fiat: { minor: bigint; currency: FiatCurrency; usdMicro?: bigint },
  receive: { asset: Asset; network: Network },
  onQuoteError: (err: unknown) => void,
): Promise<PaymentOption[]> {
  const provider = fiatProvider(providers, fiat.currency);
  if (!provider) return [];
  const fiatAmount = formatFiat(fiat.minor, fiat.currency);
  const options: PaymentOption[] = [];
  let usdMicro = fiat.usdMicro;
  try {
    const quote = await provider.quote({
      sourceAmount: fiatAmount,
      sourceCurrency: fiat.currency,
      destinationAsset: receive.asset,
      network: receive.network,
    });
    usdMicro ??= parseCrypto(quote.destinationAmount);
    for (const rail of FIAT_RAILS) {
      options.push({
        slug: rail.slug,
        type: 'fiat',
        name: rail.name,
        amount: fiatAmount,
        currency: fiat.currency,
        receive_amount: quote.destinationAmount,
        receive_currency: receive.asset,
      });
    }
  } catch (err) {
    onQuoteError(err);
  }
  if (provider.createDeposit && usdMicro !== undefined) {
    const usd = formatCrypto(usdMicro);
    for (const rail of CRYPTO_RAILS)
      options.push({
        slug: rail.slug,
        type: 'crypto',
        name: rail.name,
        amount: usd,
        currency: rail.asset,
        network: rail.network.toUpperCase(),
      });
  }
  return options;
}
