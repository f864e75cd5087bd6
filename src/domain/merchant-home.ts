// The dashboard's home figures. Days and months are UTC, as every time the
// dashboard shows: a merchant in another zone sees the same totals as their accountant's CSV.

/** Days the home page's chart shows, today included. */
export const CHART_DAYS = 30;

const DAY_MS = 86_400_000;

export interface HomePeriods {
  todayStart: Date;
  monthStart: Date;
  /** The first day of the chart. */
  chartStart: Date;
  /** What the volume query must read from: the earlier of the chart's and the month's start. */
  readFrom: Date;
}

export function homePeriods(now: Date): HomePeriods {
  const todayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const chartStart = new Date(todayStart.getTime() - (CHART_DAYS - 1) * DAY_MS);
  return { todayStart, monthStart, chartStart, readFrom: chartStart < monthStart ? chartStart : monthStart };
}

export interface DayVolume {
  /** YYYY-MM-DD, UTC. */
  day: string;
  asset: string;
  grossMicro: bigint;
  payments: number;
}

export interface VolumeTotal {
  /** Gross stablecoin micro units per asset (USDC and USDT apart: they are different money). */
  byAsset: Record<string, bigint>;
  payments: number;
}

function total(rows: readonly DayVolume[]): VolumeTotal {
  const byAsset: Record<string, bigint> = {};
  let payments = 0;
  for (const r of rows) {
    byAsset[r.asset] = (byAsset[r.asset] ?? 0n) + r.grossMicro;
    payments += r.payments;
  }
  return { byAsset, payments };
}

const dayKey = (d: Date) => d.toISOString().slice(0, 10);

/** Today's and this month's totals, and the chart's days (every day present, 0 where nothing completed). */
export function homeVolume(rows: readonly DayVolume[], periods: HomePeriods) {
  const today = dayKey(periods.todayStart);
  const month = dayKey(periods.monthStart);
  const days = Array.from({ length: CHART_DAYS }, (_, i) => {
    const day = dayKey(new Date(periods.chartStart.getTime() + i * DAY_MS));
    return { day, ...total(rows.filter((r) => r.day === day)) };
  });
  return {
    today: total(rows.filter((r) => r.day === today)),
    month: total(rows.filter((r) => r.day >= month)),
    days,
  };
}
