import { CRYPTO_DECIMALS, FIAT_DECIMALS, isFiatCurrency, type FiatCurrency } from './currencies';

// No arithmetic on floats: JSON numbers are read through their shortest decimal text
// (what JSON.parse produced), turned into integer minor units, and computed as bigint.

export class AmountError extends Error {}

/**
 * The decimal text of a JSON number, exactly as a human wrote it for any amount a payment can have
 * (JS prints the shortest round-tripping form, so 19.99 stays "19.99").
 */
function decimalText(value: number): string {
  if (!Number.isFinite(value)) throw new AmountError('must be a finite number');
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // Exponent forms (1e21, 1e-7): expand without floating arithmetic.
  const [mantissa, expText] = text.toLowerCase().split('e') as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const [intPart, fracPart = ''] = mantissa.replace('-', '').split('.') as [string, string?];
  const digits = intPart + fracPart;
  const point = intPart.length + exp;
  const expanded =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (negative ? '-' : '') + expanded;
}

/** Parses a decimal string or JSON number into integer units with `decimals` places; more places is an error. */
export function toUnits(value: number | string, decimals: number): bigint {
  const text = typeof value === 'number' ? decimalText(value) : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new AmountError('must be a decimal number');
  const [, sign, whole, frac = ''] = match;
  const trimmed = frac.replace(/0+$/, '');
  if (trimmed.length > decimals) throw new AmountError(`has more than ${decimals} decimal places`);
  const units = BigInt(whole! + trimmed.padEnd(decimals, '0'));
  return sign === '-' ? -units : units;
}

/** Formats integer units with exactly `decimals` places ("25.00", "1500", "24.750000"). */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = decimals === 0 ? digits : digits.slice(0, -decimals);
  const frac = decimals === 0 ? '' : `.${digits.slice(-decimals)}`;
  return (negative ? '-' : '') + whole + frac;
}

export const fiatDecimals = (currency: FiatCurrency) => FIAT_DECIMALS[currency];
export const formatFiat = (minor: bigint, currency: FiatCurrency) => formatUnits(minor, FIAT_DECIMALS[currency]);
/** A stored amount in its currency's decimals; a currency this build does not know shows its minor units. */
export const formatFiatText = (minor: bigint, currency: string) =>
  isFiatCurrency(currency) ? formatFiat(minor, currency) : minor.toString();
export const formatCrypto = (micro: bigint) => formatUnits(micro, CRYPTO_DECIMALS);
export const parseCrypto = (value: string) => toUnits(value, CRYPTO_DECIMALS);
/** A stablecoin amount for a sentence: at least two decimals, exact beyond ("0.50", "9.80", "10.000001"). */
export const formatCryptoAmount = (micro: bigint) => formatCrypto(micro).replace(/(\.\d\d\d*?)0+$/, '$1');

/**
 * Platform commission: `bps` of the gross G, rounded half up to the micro-unit;
 * the merchant gets exactly the rest, so the two always add up to G.
 */
export function commissionSplit(grossMicro: bigint, bps: number): { commission: bigint; merchant: bigint } {
  if (grossMicro < 0n) throw new AmountError('gross amount must not be negative');
  if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) throw new AmountError('commission must be 0..10000 bps');
  const commission = (grossMicro * BigInt(bps) + 5_000n) / 10_000n;
  return { commission, merchant: grossMicro - commission };
}

/**
 * A provider's amount text in micro units when it is a positive amount; anything else (missing,
 * malformed, zero, negative) is no money: null. A provider's malformed amount never fails a record.
 */
export function positiveMicro(text: string | undefined | null): bigint | null {
  if (!text) return null;
  try {
    const micro = parseCrypto(text);
    return micro > 0n ? micro : null;
  } catch {
    return null;
  }
}
