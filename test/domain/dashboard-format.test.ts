import { describe, expect, it } from 'vitest';
import { fieldError } from '../../dashboard/src/field-errors';
import { formatAmount, formatDate, formatDecimal, partlyPaidText } from '../../dashboard/src/format';

// The dashboard's one way to show amounts and moments: Intl's locale and time zone, from the API's
// exact decimal text, never through a float; lists cut to two decimals, never rounding money up.
describe('dashboard formatting', () => {
  const en = { locale: 'en-US' };

  it('shows a list amount with two decimals, cut, and a detail amount exact', () => {
    expect(formatAmount('155.000000', 'USDC', en)).toBe('155.00 USDC');
    expect(formatAmount('25.00', 'USD', en)).toBe('25.00 USD');
    expect(formatAmount('24.625000', 'USDC', en)).toBe('24.62 USDC');
    expect(formatAmount('9.999999', 'USDC', en)).toBe('9.99 USDC');
    expect(formatAmount('24.625000', 'USDC', { ...en, exact: true })).toBe('24.625 USDC');
    expect(formatAmount('0.000001', 'USDC', { ...en, exact: true })).toBe('0.000001 USDC');
    expect(formatAmount('155.000000', 'USDC', { ...en, exact: true })).toBe('155.00 USDC');
    expect(formatAmount('1500', 'JPY', en)).toBe('1,500 JPY');
    expect(formatAmount('-3.5', 'USDC', en)).toBe('-3.50 USDC');
  });

  it('keeps every digit of an amount beyond what a float holds, in the locale’s grouping and separator', () => {
    expect(formatAmount('123456789012345678.123456', 'USDC', { ...en, exact: true })).toBe('123,456,789,012,345,678.123456 USDC');
    expect(formatDecimal('1234567.5', { locale: 'de-DE', exact: true })).toBe('1.234.567,50');
    expect(formatDecimal('1234567.5', { locale: 'de-DE' })).toBe('1.234.567,50');
    expect(formatDecimal('not a number')).toBe('not a number');
  });

  it('says what arrived of a partly paid payment', () => {
    expect(partlyPaidText({ arrived: '10.000000', expected: '25.000000' }, 'USDC', en)).toBe('Partly paid: 10.00 of 25.00 USDC arrived');
    expect(partlyPaidText({ arrived: '10.125000', expected: '25.000000' }, 'USDC', { ...en, exact: true })).toBe(
      'Partly paid: 10.125 of 25.00 USDC arrived',
    );
  });

  it('shows a moment in the locale and time zone given, the zone named', () => {
    const at = '2026-11-28T19:05:09.000Z';
    expect(formatDate(at, { locale: 'en-US', timeZone: 'UTC' })).toBe('Nov 28, 2026, 07:05 PM UTC');
    expect(formatDate(at, { locale: 'en-GB', timeZone: 'Europe/Berlin' })).toBe('28 Nov 2026, 20:05 CET');
    expect(formatDate(at, { locale: 'en-US', timeZone: 'UTC', seconds: true })).toContain('7:05:09');
  });
});

// A refused form's details, each beside the field it names: the server's sentences as they are,
// zod's terse ones in words.
describe('dashboard field errors', () => {
  // An ApiError's shape (its class reads the browser's cookies, so it is not loaded here).
  const refused = Object.assign(new Error('The filter is not valid.'), {
    status: 422,
    code: 'ValidationError',
    details: [
      { path: 'minAmount', message: 'An amount filter needs a currency.' },
      { path: 'querystring.status', message: 'Invalid option: expected one of "pending"|"completed"' },
      { path: 'wallets.0.address', message: 'Not a polygon address (checksum included).' },
      { path: 'amount', message: 'Too small: expected string to have >=1 characters' },
    ],
  });

  it('finds the field a detail names, however deep its path', () => {
    expect(fieldError(refused, 'minAmount')).toBe('An amount filter needs a currency.');
    expect(fieldError(refused, 'status')).toBe('Not one of the values allowed.');
    expect(fieldError(refused, 'address')).toBe('Not a polygon address (checksum included).');
    expect(fieldError(refused, 'amount')).toBe('Too short, or below the smallest value allowed.');
    expect(fieldError(refused, 'maxAmount')).toBeUndefined();
    expect(fieldError(new Error('offline'), 'amount')).toBeUndefined();
    expect(fieldError(null, 'amount')).toBeUndefined();
  });
});
