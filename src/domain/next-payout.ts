import { payoutDue, type PayoutSchedule } from './balances';

// When a merchant's next payout may go (docs/settlement.md, "Payouts in runs"): the moment from which
// `payoutDue` says yes at a settlement run, so what the dashboard tells the merchant is what the
// runs do. Pure: the caller gives the last live payout of the network and asset, and the time.

const DAY_MS = 24 * 3600 * 1000;

const startOfUtcDay = (at: Date) => Math.floor(at.getTime() / DAY_MS) * DAY_MS;

/**
 * The earliest moment a settlement run may pay the balance: `now` when the next run may (instant; daily
 * or weekly with no payout yet this UTC day or ISO week; a payout asked for since the last one), else
 * the next UTC midnight (daily) or the next Monday 00:00 UTC (weekly); null under a manual schedule
 * with nothing asked for. The minimum still holds a smaller balance back, except from a payout asked
 * for; the runs go every PAYOUT_INTERVAL_SECONDS, so "now" means within that.
 */
export function nextPayoutAt(input: { schedule: PayoutSchedule; lastPayoutAt: Date | null; now: Date; requested?: boolean }): Date | null {
  if (payoutDue(input)) return input.now;
  switch (input.schedule) {
    case 'instant':
      return input.now;
    case 'manual':
      return null;
    case 'daily':
      return new Date(startOfUtcDay(input.now) + DAY_MS);
    case 'weekly': {
      // getUTCDay: Sunday 0 … Saturday 6; the ISO week starts on Monday.
      const sinceMonday = (input.now.getUTCDay() + 6) % 7;
      return new Date(startOfUtcDay(input.now) + (7 - sinceMonday) * DAY_MS);
    }
  }
}

/** Whether a payout asked for at `requestedAt` is still to be paid: none paid since (as the planner counts it). */
export const payoutRequested = (requestedAt: Date | null, lastPayoutAt: Date | null): boolean =>
  requestedAt !== null && (lastPayoutAt === null || requestedAt > lastPayoutAt);
