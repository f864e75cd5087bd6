import type { Config } from '../config';
import { isFiatCurrency, type FiatCurrency } from '../domain/currencies';
import type { ErrorDetail } from '../domain/errors';
import { AmountError, fiatDecimals, toUnits } from '../domain/money';

/** A fiat amount in minor units within the configured bounds, or a detail saying why not. */
export function parseAmount(
  amount: number | string,
  currency: FiatCurrency,
  bounds: Config['checkout'],
  details: ErrorDetail[],
  path = 'amount',
): bigint | null {
  const decimals = fiatDecimals(currency);
  let minor: bigint;
  try {
    minor = toUnits(amount, decimals);
  } catch (err) {
    details.push({ path, message: err instanceof AmountError ? `${currency} amount ${err.message}.` : 'Invalid amount.' });
    return null;
  }
  const scale = 10n ** BigInt(decimals);
  if (minor < BigInt(bounds.amountMinMajor) * scale || minor > BigInt(bounds.amountMaxMajor) * scale) {
    details.push({ path, message: `Amount must be between ${bounds.amountMinMajor} and ${bounds.amountMaxMajor} ${currency}.` });
    return null;
  }
  return minor;
}

/** Currency and amount together; the currency's own decimals decide what a valid amount is. */
export function parseFiat(
  bounds: Config['checkout'],
  amount: number | string,
  currencyInput: string,
  details: ErrorDetail[],
  paths = { amount: 'amount', currency: 'currency' },
): { minor: bigint; currency: FiatCurrency } | null {
  const currency = currencyInput.toUpperCase();
  if (!isFiatCurrency(currency)) {
    details.push({ path: paths.currency, message: `Unsupported currency ${currencyInput}.` });
    return null;
  }
  const minor = parseAmount(amount, currency, bounds, details, paths.amount);
  return minor === null ? null : { minor, currency };
}
