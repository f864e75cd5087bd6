import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, type Home, type VolumeTotal } from '../api';
import { ErrorText } from '../ui';
import { formatAmount } from '../format';

// The home page's figures. The chart is a plain SVG (no chart library: 30 bars do not need one)
// described for screen readers, with the same numbers as a table beside it.

const STATUS_ORDER = ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'];

function amounts(t: VolumeTotal): string {
  const parts = Object.entries(t.byAsset).map(([asset, amount]) => formatAmount(amount, asset));
  return parts.length ? parts.join(' + ') : '0';
}

/** A bar's height: the day's USDC and USDT together (both dollar tokens); a picture only, never a sum shown as money. */
const dayValue = (t: VolumeTotal) => Object.values(t.byAsset).reduce((sum, a) => sum + Number(a), 0);

function VolumeChart({ days }: { days: Home['days'] }) {
  const width = 600;
  const height = 160;
  const max = Math.max(...days.map(dayValue), 0);
  const bar = width / days.length;
  const busiest = days.reduce((best, d) => (dayValue(d) > dayValue(best) ? d : best), days[0]!);
  const total = days.reduce((n, d) => n + d.payments, 0);
  return (
    <figure>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-labelledby="chart-title chart-desc"
        className="chart"
        preserveAspectRatio="none"
        data-testid="volume-chart"
      >
        <title id="chart-title">Completed volume per day, last {days.length} days (UTC)</title>
        <desc id="chart-desc">
          {total === 0
            ? 'No payment completed in these days.'
            : `${total} payments completed; the busiest day was ${busiest.day} with ${amounts(busiest)}. The table below lists every day.`}
        </desc>
        <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} className="axis" />
        {days.map((d, i) => {
          const h = max === 0 ? 0 : Math.max((dayValue(d) / max) * (height - 10), dayValue(d) > 0 ? 2 : 0);
          return <rect key={d.day} x={i * bar + 1} y={height - h} width={bar - 2} height={h} className="bar" />;
        })}
      </svg>
      <figcaption>
        Completed volume per day, USDC and USDT together, from {days[0]?.day} to {days.at(-1)?.day} (UTC).
      </figcaption>
      <details>
        <summary>The chart’s numbers as a table</summary>
        <table>
          <caption className="visually-hidden">Completed volume per day</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Volume</th>
              <th scope="col">Payments</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <th scope="row">{d.day}</th>
                <td>{amounts(d)}</td>
                <td>{d.payments}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

export function HomeFigures() {
  const home = useQuery({ queryKey: ['home'], queryFn: () => api<Home>('GET', '/home') });
  if (home.error) return <ErrorText error={home.error} />;
  if (!home.data) return <p role="status">Loading the figures…</p>;
  const h = home.data;
  return (
    <>
      <section aria-labelledby="volume">
        <h2 id="volume">Volume</h2>
        <dl className="figures">
          <div>
            <dt>Today (UTC)</dt>
            <dd data-testid="today">
              {amounts(h.today)} <small>({h.today.payments} payments)</small>
            </dd>
          </div>
          <div>
            <dt>This month</dt>
            <dd data-testid="month">
              {amounts(h.month)} <small>({h.month.payments} payments)</small>
            </dd>
          </div>
          <div>
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
          </div>
        </dl>
        <VolumeChart days={h.days} />
      </section>
      <section aria-labelledby="by-status">
        <h2 id="by-status">Payments by status</h2>
        <ul>
          {STATUS_ORDER.map((s) => (
            <li key={s}>
              <Link to="/payments" search={{ status: s }}>
                {s}
              </Link>
              : <span data-testid={`status-${s}`}>{h.byStatus[s] ?? 0}</span>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
