import { NETWORK_NAMES, SUPPORTED_PAIRS, type Asset, type Network } from './assets';
import type { FiatCurrency } from './currencies';
import { parseCrypto } from './money';

// The simple API's payment rails: fiat rails go through the on-ramp provider (its page), crypto
// rails through a deposit address for each supported asset-network pair.

export type Rail =
  { slug: string; type: 'fiat'; name: string } | { slug: string; type: 'crypto'; name: string; asset: Asset; network: Network };

export const FIAT_RAILS: readonly Rail[] = [
  { slug: 'card', type: 'fiat', name: 'Card' },
  { slug: 'bank_transfer', type: 'fiat', name: 'Bank transfer' },
];

export const CRYPTO_RAILS: readonly Extract<Rail, { type: 'crypto' }>[] = (
  Object.entries(SUPPORTED_PAIRS) as [Asset, readonly Network[]][]
).flatMap(([asset, networks]) =>
  networks.map((network) => ({
    slug: `${asset.toLowerCase()}_${network}`,
    type: 'crypto' as const,
    name: `${asset} on ${NETWORK_NAMES[network]}`,
    asset,
    network,
  })),
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

/** What the customer is shown for a chosen rail: the provider's page, or where to send how much. */
export type PaymentInstructions =
  | { type: 'fiat'; slug: string; providerPaymentId: string; redirectUrl: string }
  | { type: 'crypto'; slug: string; address: string; amount: string; asset: string; network: string; expiresAt: string };

interface Deposit {
  depositId: string;
  address: string;
  asset: string;
  network: string;
  amount: string;
  expiresAt: string;
}

/** A provider deposit as the order's columns and the customer's instructions (valid until the earlier of the two expiries). */
export function depositChoice(slug: string, d: Deposit, orderExpiresAt: Date) {
  return {
    columns: {
      providerPaymentId: d.depositId,
      depositAddress: d.address,
      depositAsset: d.asset,
      depositNetwork: d.network,
      depositAmountMicro: parseCrypto(d.amount),
    },
    instructions: {
      type: 'crypto',
      slug,
      address: d.address,
      amount: d.amount,
      asset: d.asset,
      network: d.network.toUpperCase(),
      expiresAt: new Date(Math.min(Date.parse(d.expiresAt), orderExpiresAt.getTime())).toISOString(),
    } satisfies PaymentInstructions,
  };
}
