import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAYOUT_SCHEDULES, payoutDue } from '../../src/domain/balances';
import { nextPayoutAt, payoutRequested } from '../../src/domain/next-payout';

// The next payout the dashboard announces is the first moment the settlement runs' own rule
// (payoutDue) says yes; these pin the calendar, and the property ties the two together.

// 2026-11-25 is a Wednesday.
const wednesdayNoon = new Date('2026-11-25T12:00:00Z');
const at = (iso: string) => new Date(iso);

describe('nextPayoutAt', () => {
  it('instant: the next run, whatever was paid before', () => {
    expect(nextPayoutAt({ schedule: 'instant', lastPayoutAt: wednesdayNoon, now: wednesdayNoon })).toEqual(wednesdayNoon);
    expect(nextPayoutAt({ schedule: 'instant', lastPayoutAt: null, now: wednesdayNoon })).toEqual(wednesdayNoon);
  });

  it('daily: the next run when nothing was paid yet this UTC day, else the next UTC midnight', () => {
    expect(nextPayoutAt({ schedule: 'daily', lastPayoutAt: null, now: wednesdayNoon })).toEqual(wednesdayNoon);
    expect(nextPayoutAt({ schedule: 'daily', lastPayoutAt: at('2026-11-24T23:59:59Z'), now: wednesdayNoon })).toEqual(wednesdayNoon);
    expect(nextPayoutAt({ schedule: 'daily', lastPayoutAt: at('2026-11-25T00:00:00Z'), now: wednesdayNoon })).toEqual(
      at('2026-11-26T00:00:00Z'),
    );
    // Across a month's end.
    expect(nextPayoutAt({ schedule: 'daily', lastPayoutAt: at('2026-11-30T00:00:10Z'), now: at('2026-11-30T23:59:59Z') })).toEqual(
      at('2026-12-01T00:00:00Z'),
    );
  });

  it('weekly: the next run when nothing was paid yet this ISO week, else the next Monday 00:00 UTC', () => {
    expect(nextPayoutAt({ schedule: 'weekly', lastPayoutAt: at('2026-11-22T23:59:59Z'), now: wednesdayNoon })).toEqual(wednesdayNoon);
    expect(nextPayoutAt({ schedule: 'weekly', lastPayoutAt: at('2026-11-23T00:00:00Z'), now: wednesdayNoon })).toEqual(
      at('2026-11-30T00:00:00Z'),
    );
    // On a Monday after this week's payout: the next Monday, not today.
    expect(nextPayoutAt({ schedule: 'weekly', lastPayoutAt: at('2026-11-30T00:00:05Z'), now: at('2026-11-30T09:00:00Z') })).toEqual(
      at('2026-12-07T00:00:00Z'),
    );
    // On a Sunday: the day after.
    expect(nextPayoutAt({ schedule: 'weekly', lastPayoutAt: at('2026-11-23T08:00:00Z'), now: at('2026-11-29T23:00:00Z') })).toEqual(
      at('2026-11-30T00:00:00Z'),
    );
  });

  it('manual: never by itself; the next run once asked for', () => {
    expect(nextPayoutAt({ schedule: 'manual', lastPayoutAt: null, now: wednesdayNoon })).toBeNull();
    expect(nextPayoutAt({ schedule: 'manual', lastPayoutAt: null, now: wednesdayNoon, requested: true })).toEqual(wednesdayNoon);
  });

  it('a payout asked for goes at the next run under any schedule', () => {
    const paidThisMorning = at('2026-11-25T00:00:30Z');
    for (const schedule of PAYOUT_SCHEDULES)
      expect(nextPayoutAt({ schedule, lastPayoutAt: paidThisMorning, now: wednesdayNoon, requested: true }), schedule).toEqual(
        wednesdayNoon,
      );
  });

  it('is the first moment payoutDue says yes, when no payout goes meanwhile', () => {
    const time = fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2035-01-01T00:00:00Z') });
    fc.assert(
      fc.property(
        fc.constantFrom(...PAYOUT_SCHEDULES),
        time,
        fc.option(fc.integer({ min: 0, max: 30 * 24 * 3600 * 1000 }), { nil: null }),
        fc.boolean(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (schedule, nowMs, lastAgo, requested, fraction) => {
          const now = new Date(nowMs);
          const lastPayoutAt = lastAgo === null ? null : new Date(nowMs - lastAgo);
          const input = { schedule, lastPayoutAt, requested };
          const next = nextPayoutAt({ ...input, now });
          if (next === null) {
            // Manual, nothing asked for: no run ever pays, however long one waits.
            expect([schedule, requested]).toEqual(['manual', false]);
            expect(payoutDue({ ...input, now: new Date(nowMs + 400 * 24 * 3600 * 1000) })).toBe(false);
            return;
          }
          expect(next.getTime()).toBeGreaterThanOrEqual(nowMs);
          expect(payoutDue({ ...input, now: next })).toBe(true);
          if (next.getTime() > nowMs) {
            // Not a moment earlier: neither just before it nor anywhere between now and then.
            expect(payoutDue({ ...input, now: new Date(next.getTime() - 1) })).toBe(false);
            expect(payoutDue({ ...input, now: new Date(nowMs + Math.floor((next.getTime() - nowMs) * fraction * 0.999)) })).toBe(false);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('payoutRequested', () => {
  it('counts a request made after the last payout only', () => {
    expect(payoutRequested(null, null)).toBe(false);
    expect(payoutRequested(wednesdayNoon, null)).toBe(true);
    expect(payoutRequested(wednesdayNoon, at('2026-11-25T11:59:59Z'))).toBe(true);
    expect(payoutRequested(wednesdayNoon, wednesdayNoon)).toBe(false);
    expect(payoutRequested(wednesdayNoon, at('2026-11-25T12:00:01Z'))).toBe(false);
  });
});
