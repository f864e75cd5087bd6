import { Badge, Button, Skeleton } from '@radix-ui/themes';
import { lazy, Suspense, useEffect, useState, type ComponentProps } from 'react';
import type { DayChart as DayChartShape } from './chart';
import { formatAmount, formatDate } from './format';

// How the pages show a value: an amount, a moment or a countdown, a state as a badge, a value to copy,
// a chart of days.

/** Whole minutes until `until`, as hours and minutes; 0 once past. */
export function remaining(until: Date, now: Date): string {
  const minutes = Math.max(0, Math.ceil((until.getTime() - now.getTime()) / 60_000));
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** A countdown to `until` (a rotated key's end of overlap), updated every half minute. */
export function Countdown({ until }: { until: string }) {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 30_000);
    return () => clearInterval(timer);
  }, []);
  const end = new Date(until);
  if (end <= now) return <>stopped {formatDate(until)}</>;
  return (
    <time dateTime={until} title={formatDate(until, { seconds: true })}>
      stops in {remaining(end, now)}
    </time>
  );
}

/**
 * Copies a value a person hands on (a link's URL, an address, a secret) and says whether the browser
 * let it. The button's name carries the value, to tell several apart, unless `unnamed`: a secret or a
 * list of codes is not read out again with its button.
 */
export function CopyButton({ value, what, unnamed }: { value: string; what: string; unnamed?: boolean }) {
  const [note, setNote] = useState('');
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setNote('Copied.'),
      () => setNote(`Copying was refused by the browser: select ${what} and copy it.`),
    );
  return (
    <>
      <Button type="button" variant="soft" size="1" onClick={() => void copy()}>
        Copy
        <span className="visually-hidden">
          {' '}
          {what}
          {unnamed ? '' : ` ${value}`}
        </span>
      </Button>
      <span role="status">{note}</span>
    </>
  );
}

/** An amount in a list: two decimals, and every digit on hover when some were cut. */
export function Amount({ value, unit }: { value: string; unit: string }) {
  const shown = formatAmount(value, unit);
  const whole = formatAmount(value, unit, { exact: true });
  return <span title={whole === shown ? undefined : whole}>{shown}</span>;
}

/** A moment as a <time>: readable, machine-readable, and to the second on hover. */
export function When({ at }: { at: string }) {
  return (
    <time dateTime={at} title={formatDate(at, { seconds: true })}>
      {formatDate(at)}
    </time>
  );
}

const STATUS_COLOR = {
  pending: 'amber',
  processing: 'blue',
  completed: 'green',
  failed: 'red',
  expired: 'gray',
  canceled: 'gray',
} as const;

/** The other states the pages list (links, deliveries, payouts, refunds, exceptions): waiting, on its way, done, failed. */
const STATE_COLOR: Record<string, 'amber' | 'blue' | 'green' | 'red' | 'gray'> = {
  ...STATUS_COLOR,
  active: 'blue',
  paid: 'green',
  succeeded: 'green',
  planned: 'amber',
  signed: 'blue',
  broadcast: 'blue',
  confirmed: 'green',
  requested: 'amber',
  refunded: 'green',
  open: 'amber',
  accepted: 'blue',
};

/** A payment's status as a coloured badge; the word is always there, the colour only repeats it. */
export function StatusBadge({ status, label }: { status: keyof typeof STATUS_COLOR; label?: string }) {
  return <StateBadge state={status} label={label} />;
}

/** Any listed state as a badge, grey for a word without a colour of its own. */
export function StateBadge({ state, label }: { state: string; label?: string | undefined }) {
  return (
    <Badge color={STATE_COLOR[state] ?? 'gray'} highContrast variant="soft" data-status={state}>
      {label ?? state}
    </Badge>
  );
}

// The chart library is the heaviest code of the dashboard: fetched only where a chart is drawn, after
// the page's own figures are on screen.
const LazyDayChart = lazy(() => import('./chart').then((m) => ({ default: m.DayChart })));

export function DayChart(props: ComponentProps<typeof DayChartShape>) {
  return (
    <Suspense fallback={<Skeleton className="skeleton-chart" />}>
      <LazyDayChart {...props} />
    </Suspense>
  );
}
