import { describe, expect, it } from 'vitest';
import { decodeListCursor, encodeListCursor } from '../../src/domain/payment-list';

// A list's cursor is a position the list handed out; an edited one is the client's mistake (400),
// never a time that reaches Postgres and fails there.
const ID = 'SV_4f9a1c2b7d8e6f5a4b3c2d1e';

describe('list cursors', () => {
  it('give back the position they were made from', () => {
    const position = { at: '2026-11-28T10:15:05.123456Z', id: ID };
    expect(decodeListCursor(encodeListCursor(position))).toEqual(position);
  });

  it.each([
    ['a day the month does not have', '2026-02-30T10:15:05.123456Z'],
    ['the 31st of a 30-day month', '2026-04-31T00:00:00.000000Z'],
    ['year 0', '0000-06-01T00:00:00.000000Z'],
    ['an hour past 23', '2026-11-28T24:00:00.000000Z'],
    ['a time without microseconds', '2026-11-28T10:15:05Z'],
  ])('refuse %s', (_what, at) => {
    expect(() => decodeListCursor(encodeListCursor({ at, id: ID }))).toThrow('cursor is not one this list handed out.');
  });
});
