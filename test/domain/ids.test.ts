import { describe, expect, it } from 'vitest';
import { CANONICAL_PAYMENT_ID, newPaymentId, randomBase62 } from '../../src/domain/ids';

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('randomBase62', () => {
  it('gives the length asked for, in base62 digits only, across refills of its pool', () => {
    // 3,000 draws of 20 digits read the 4 KiB pool about fifteen times over.
    for (let i = 0; i < 3000; i++) expect(randomBase62(20)).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(randomBase62(0)).toBe('');
    expect(randomBase62(5000)).toHaveLength(5000);
    expect(newPaymentId()).toMatch(CANONICAL_PAYMENT_ID);
  });

  it('never repeats itself', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => randomBase62(20)));
    expect(ids.size).toBe(20_000);
  });

  it('draws every digit equally often: no modulo bias toward the first eight', () => {
    // 620,000 digits: 10,000 of each expected, a standard deviation of about 99. Taking a byte's
    // remainder without skipping the top eight values would give digits 0–7 about 12,500 each.
    const counts = new Map<string, number>();
    for (const digit of randomBase62(620_000)) counts.set(digit, (counts.get(digit) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...DIGITS].sort().join(''));
    for (const count of counts.values()) expect(Math.abs(count - 10_000)).toBeLessThan(700);
  });
});
