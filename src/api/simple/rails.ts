import { NETWORK_NAMES, SUPPORTED_PAIRS, type Asset, type Network } from '../../domain/assets';
import type { FiatCurrency } from '../../domain/currencies';
import { formatCrypto, formatFiat, parseCrypto } from '../../domain/money';
import type { ProviderAdapter } from '../../providers/types';
import type { ProviderRegistry } from '../../providers/registry';
import { quoteDestinationAmount } from '../../../sandbox/rates';

// The simple API's payment rails: fiat rails go through the on-ramp provider (its page), crypto
// rails through a deposit address for each supported asset-network pair.

export type Rail =
  | { slug: string; type: 'fiat'; name: string }
  | { slug: string; type: 'crypto'; name: string; asset: Asset; network: Network };

export const FIAT_RAILS: readonly Rail[] = [
  { slug: 'card', type: 'fiat', name: 'Card' },
  { slug: 'bank_transfer', type: 'fiat', name: 'Bank transfer' },
];

export const CRYPTO_RAILS: readonly Rail[] = (Object.entries(SUPPORTED_PAIRS) as [Asset, readonly Network[]][]).flatMap(([asset, networks]) =>
  networks.map((network) => ({ slug: `${asset.toLowerCase()}_${network}`, type: 'crypto' as const, name: `${asset} on ${NETWORK_NAMES[network]}`, asset, network })),
);

export const findRail = (slug: string): Rail | undefined => [...FIAT_RAILS, ...CRYPTO_RAILS].find((r) => r.slug === slug);

/** The default fiat rail, pressed by the hosted page's Pay button when no rail is named. */
export const DEFAULT_FIAT_RAIL = 'card';

/** A country the provider routes on for each currency (the simple API asks for none). */
export const CURRENCY_COUNTRY: Readonly<Record<FiatCurrency, string>> = {
  USD: 'US',
  EUR: 'DE',
  GBP: 'GB',
  CAD: 'CA',
  AUD: 'AU',
  CHF: 'CH',
  SEK: 'SE',
  NOK: 'NO',
  DKK: 'DK',
  PLN: 'PL',
  BRL: 'BR',
  MXN: 'MX',
  JPY: 'JP',
};

/** The fiat's USD value at the sandbox's fixed rates, in micro-units (stablecoins are taken at 1 USD). */
export function usdMicroOf(fiatMinor: bigint, currency: FiatCurrency): bigint {
  return parseCrypto(quoteDestinationAmount(formatFiat(fiatMinor, currency), currency).destinationAmount);
}

export function fiatProvider(providers: ProviderRegistry, currency: FiatCurrency): ProviderAdapter | undefined {
  return providers.route(CURRENCY_COUNTRY[currency], currency);
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
 * Rails for an amount. Fiat rails carry the provider's quote; when the provider cannot quote
 * (unreachable), they are left out and the crypto rails remain.
 */
export async function paymentOptions(
  providers: ProviderRegistry,
  fiatMinor: bigint,
  currency: FiatCurrency,
  receiveAsset: Asset,
  receiveNetwork: Network,
  onQuoteError: (err: unknown) => void,
): Promise<PaymentOption[]> {
  const fiatAmount = formatFiat(fiatMinor, currency);
  const usd = formatCrypto(usdMicroOf(fiatMinor, currency));
  const options: PaymentOption[] = [];
  const provider = fiatProvider(providers, currency);
  if (provider) {
    try {
      const quote = await provider.quote({ sourceAmount: fiatAmount, sourceCurrency: currency, destinationAsset: receiveAsset, network: receiveNetwork });
      for (const rail of FIAT_RAILS) {
        options.push({ slug: rail.slug, type: 'fiat', name: rail.name, amount: fiatAmount, currency, receive_amount: quote.destinationAmount, receive_currency: receiveAsset });
      }
    } catch (err) {
      onQuoteError(err);
    }
  }
  if (provider?.createDeposit) {
    for (const rail of CRYPTO_RAILS) {
      if (rail.type !== 'crypto') continue;
      options.push({ slug: rail.slug, type: 'crypto', name: rail.name, amount: usd, currency: rail.asset, network: rail.network.toUpperCase() });
    }
  }
  return options;
}
