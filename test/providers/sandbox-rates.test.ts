import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIAT_CURRENCIES, FIAT_DECIMALS } from '../../src/domain/currencies';
import { AmountError, formatUnits, toUnits } from '../../src/domain/money';
import { quoteDestinationAmount, SANDBOX_COUNTRIES, SANDBOX_RATES, sandboxServesCountry } from '../../sandbox/rates';
import { sandboxSupportsCurrency } from '../../src/providers/sandbox/coverage';

describe('sandbox quotes', () => {
  it.each([
    ['25.00', 'USD', '25.000000'],
    ['19.99', 'EUR', '21.589200'],
    ['0.01', 'GBP', '0.012700'],
    ['1500', 'JPY', '10.050000'],
    ['1', 'JPY', '0.006700'],
    ['999999.99', 'SEK', '95999.999040'],
  ] as const)('%s %s buys exactly %s', (amount, currency, expected) => {
    expect(quoteDestinationAmount(amount, currency)).toEqual({ destinationAmount: expected, rate: SANDBOX_RATES[currency] });
  });

  it('floors a fee to the micro-unit, once', () => {
    // 0.01 EUR × 1.08 × 0.9967 = 0.01076436
    expect(quoteDestinationAmount('0.01', 'EUR', 33).destinationAmount).toBe('0.010764');
    expect(quoteDestinationAmount('19.99', 'EUR', 25).destinationAmount).toBe('21.535227');
    expect(quoteDestinationAmount('19.99', 'EUR', 10_000).destinationAmount).toBe('0.000000');
  });

  it('refuses more decimals than the currency has, negative amounts and impossible fees', () => {
    expect(() => quoteDestinationAmount('19.999', 'EUR')).toThrow(AmountError);
    expect(() => quoteDestinationAmount('1.5', 'JPY')).toThrow(AmountError);
    expect(() => quoteDestinationAmount('-1.00', 'USD')).toThrow(AmountError);
    expect(() => quoteDestinationAmount('1.00', 'USD', 10_001)).toThrow(AmountError);
  });

  it('is the exact product, floored, for any amount in any currency', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIAT_CURRENCIES), fc.bigInt({ min: 0n, max: 10n ** 12n }), (currency, minor) => {
        const d = FIAT_DECIMALS[currency];
        const micro = toUnits(quoteDestinationAmount(formatUnits(minor, d), currency).destinationAmount, 6);
        // micro ≤ minor × rate / 10^d < micro + 1, compared in integers.
        const exact = minor * toUnits(SANDBOX_RATES[currency], 6);
        const scale = 10n ** BigInt(d);
        return micro * scale <= exact && exact < (micro + 1n) * scale;
      }),
    );
  });

  it('has a 6-decimal rate for every checkout currency', () => {
    for (const c of FIAT_CURRENCIES) {
      expect(SANDBOX_RATES[c]).toMatch(/^\d+\.\d{6}$/);
      expect(sandboxSupportsCurrency(c)).toBe(true);
    }
    expect(sandboxSupportsCurrency('XYZ')).toBe(false);
  });
});

describe('sandbox countries', () => {
  it('serves a broad list, and not sanctioned or unserved ones', () => {
    expect(SANDBOX_COUNTRIES.size).toBeGreaterThanOrEqual(40);
    for (const c of ['US', 'FR', 'DE', 'GB', 'JP', 'BR', 'us']) expect(sandboxServesCountry(c)).toBe(true);
    for (const c of ['KP', 'IR', 'CU', 'SY', 'RU']) expect(sandboxServesCountry(c)).toBe(false);
  });
});
