import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AmountError, commissionSplit, formatCrypto, formatFiat, formatUnits, parseCrypto, toUnits } from '../../src/domain/money';

describe('amounts in integer units', () => {
  it.each([
    [25, 2, 2500n],
    [19.99, 2, 1999n],
    [0.1, 2, 10n],
    [1500, 0, 1500n],
    [1e6, 2, 100000000n],
    [1.5e-5, 6, 15n],
    ['24.750000', 6, 24750000n],
    ['10.10', 2, 1010n],
  ] as const)('reads %s with %i decimals as %s', (value, decimals, units) => {
    expect(toUnits(value, decimals)).toBe(units);
  });

  it.each([
    [19.999, 2],
    [0.5, 0],
    [1e-7, 6],
    [Number.NaN, 2],
    [Number.POSITIVE_INFINITY, 2],
    ['1,00', 2],
    ['', 2],
  ])('refuses %s with %i decimals', (value, decimals) => {
    expect(() => toUnits(value, decimals)).toThrow(AmountError);
  });

  it('formats with exactly the currency decimals', () => {
    expect(formatFiat(2500n, 'USD')).toBe('25.00');
    expect(formatFiat(5n, 'EUR')).toBe('0.05');
    expect(formatFiat(1500n, 'JPY')).toBe('1500');
    expect(formatCrypto(24750000n)).toBe('24.750000');
    expect(formatCrypto(1n)).toBe('0.000001');
    expect(formatUnits(-150n, 2)).toBe('-1.50');
  });

  it('round-trips any cent amount written as a JSON number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), (cents) => {
        const text = formatUnits(BigInt(cents), 2);
        expect(toUnits(JSON.parse(text) as number, 2)).toBe(BigInt(cents));
      }),
    );
  });

  it('round-trips micro-unit strings', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (micro) => {
        expect(parseCrypto(formatCrypto(micro))).toBe(micro);
      }),
    );
  });
});

describe('commission split', () => {
  it('takes bps of the gross, rounded half up to the micro-unit', () => {
    expect(commissionSplit(parseCrypto('24.750000'), 100)).toEqual({ commission: 247500n, merchant: 24502500n });
    // 0.000050 × 1% = 0.0000005 → rounds half up to 0.000001.
    expect(commissionSplit(50n, 100)).toEqual({ commission: 1n, merchant: 49n });
    expect(commissionSplit(49n, 100)).toEqual({ commission: 0n, merchant: 49n });
    expect(commissionSplit(1_000_000n, 0)).toEqual({ commission: 0n, merchant: 1_000_000n });
    expect(commissionSplit(1_000_000n, 10_000)).toEqual({ commission: 1_000_000n, merchant: 0n });
  });

  it('always adds up to the gross, to the last digit, with both parts non-negative', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.integer({ min: 0, max: 10_000 }), (gross, bps) => {
        const { commission, merchant } = commissionSplit(gross, bps);
        expect(commission + merchant).toBe(gross);
        expect(commission >= 0n && merchant >= 0n).toBe(true);
        // Within half a micro-unit of the exact commission.
        const exactTimes2 = (gross * BigInt(bps) * 2n) / 10_000n;
        expect(commission * 2n - exactTimes2 <= 1n && exactTimes2 - commission * 2n <= 1n).toBe(true);
      }),
    );
  });

  it('refuses bad inputs', () => {
    expect(() => commissionSplit(-1n, 100)).toThrow(AmountError);
    expect(() => commissionSplit(1n, 10_001)).toThrow(AmountError);
    expect(() => commissionSplit(1n, 1.5)).toThrow(AmountError);
  });
});
