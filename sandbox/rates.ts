import { FIAT_DECIMALS, type FiatCurrency } from '../src/domain/currencies';
import { AmountError, formatCrypto, toUnits } from '../src/domain/money';

// The sandbox's price list. Rates are fixed on purpose: tests and demos must see the same amounts
// every run, as they would never be with a live market. Both stablecoins are taken at 1 USD.

/** USD-stablecoin per one unit of fiat, 6 decimals. Typed by FiatCurrency so no currency is left out. */
export const SANDBOX_RATES: Readonly<Record<FiatCurrency, string>> = {
  USD: '1.000000',
  EUR: '1.080000',
  GBP: '1.270000',
  CAD: '0.740000',
  AUD: '0.660000',
  CHF: '1.130000',
  SEK: '0.096000',
  NOK: '0.094000',
  DKK: '0.145000',
  PLN: '0.250000',
  BRL: '0.200000',
  MXN: '0.058000',
  JPY: '0.006700',
};

/** The sandbox's own fee, taken from the delivered amount. Zero, so a quote is exactly amount × rate. */
export const SANDBOX_FEE_BPS = 0;

// The simulator serves exactly the coverage its adapter documents.
export { SANDBOX_COUNTRIES, sandboxServesCountry } from '../src/providers/sandbox/coverage';

export interface SandboxQuote {
  /** Stablecoin delivered, 6 decimals. */
  destinationAmount: string;
  rate: string;
}

/**
 * Stablecoin for `sourceAmount` of fiat: amount × rate × (1 − fee), floored once to the micro-unit,
 * all in bigint so no float ever rounds a customer's money. The asset does not change the price.
 */
export function quoteDestinationAmount(sourceAmount: string, sourceCurrency: FiatCurrency, feeBps: number = SANDBOX_FEE_BPS): SandboxQuote {
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > 10_000) throw new AmountError('fee must be 0..10000 bps');
  const decimals = FIAT_DECIMALS[sourceCurrency];
  const minor = toUnits(sourceAmount, decimals);
  if (minor < 0n) throw new AmountError('must not be negative');
  const rate = SANDBOX_RATES[sourceCurrency];
  // minor / 10^d × rateMicro / 10^6 whole coins = minor × rateMicro / 10^d micro-units.
  const micro = (minor * toUnits(rate, 6) * BigInt(10_000 - feeBps)) / (10n ** BigInt(decimals) * 10_000n);
  return { destinationAmount: formatCrypto(micro), rate };
}
