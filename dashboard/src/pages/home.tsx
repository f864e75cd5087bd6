import { Card } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, type Home, type VolumeTotal } from '../api';
import { ErrorText, PagePending } from '../ui';
import { DayChart, StatusBadge } from '../values';
import { formatAmount } from '../format';

// The home page's figures: today's and this month's volume, the open exceptions, a chart of the last
// days (chart.tsx: axes, tooltips, the same numbers as a table) and the payments by status.

const STATUS_ORDER = ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'] as const;

function amounts(t: VolumeTotal): string {
  const parts = Object.entries(t.byAsset).map(([asset, amount]) => formatAmount(amount, asset));
  return parts.length ? parts.join(' + ') : '0';
}

/** A bar's height: the day's USDC and USDT together (both dollar tokens); a picture only, never a sum shown as money. */
const dayValue = (t: VolumeTotal) => Object.values(t.byAsset).reduce((sum, a) => sum + Number(a), 0);

function VolumeChart({ days }: { days: Home['days'] }) {
  const busiest = days.reduce((best, d) => (dayValue(d) > dayValue(best) ? d : best), days[0]!);
  const total = days.reduce((n, d) => n + d.payments, 0);
  const summary =
    total === 0
      ? 'No payment completed in these days.'
      : `${total} payments completed; the busiest day was ${busiest.day} with ${amounts(busiest)}.`;
  return (
    <DayChart
      testId="volume-chart"
      title={`Completed volume per day, last ${days.length} days (UTC)`}
      caption={`Completed volume per day, USDC and USDT together, from ${days[0]?.day} to ${days.at(-1)?.day} (UTC). ${summary}`}
      amountLabel="Volume"
      countLabel="payments"
      days={days.map((d) => ({ day: d.day, value: dayValue(d), amount: amounts(d), count: d.payments }))}
    />
  );
}

export function HomeFigures() {
  const home = useQuery({ queryKey: ['home'], queryFn: () => api<Home>('GET', '/home') });
  if (home.error) return <ErrorText error={home.error} />;
  if (!home.data) return <PagePending />;
  const h = home.data;
  return (
    <>
      <section aria-labelledby="volume">
        <h2 id="volume">Volume</h2>
        <dl className="figures">
          <Card>
            <dt>Today (UTC)</dt>
            <dd data-testid="today">
              {amounts(h.today)} <small>({h.today.payments} payments)</small>
            </dd>
          </Card>
          <Card>
            <dt>This month</dt>
            <dd data-testid="month">
              {amounts(h.month)} <small>({h.month.payments} payments)</small>
            </dd>
          </Card>
          <Card>
            <dt>Open exceptions</dt>
            <dd data-testid="open-exceptions">
              {h.openExceptions > 0 ? (
                <Link to="/payments" search={{ openExceptions: 'true' }}>
                  {h.openExceptions} to resolve
                </Link>
              ) : (
                'none'
              )}
            </dd>
          </Card>
        </dl>
        <VolumeChart days={h.days} />
      </section>
      <section aria-labelledby="by-status">
        <h2 id="by-status">Payments by status</h2>
        <ul>
          {STATUS_ORDER.map((s) => (
            <li key={s}>
              <Link to="/payments" search={{ status: s }}>
                <StatusBadge status={s} />
              </Link>
              : <span data-testid={`status-${s}`}>{h.byStatus[s] ?? 0}</span>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
