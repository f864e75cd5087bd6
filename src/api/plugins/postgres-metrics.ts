import { Gauge, Histogram, type MetricObjectWithValues, type MetricValueWithName, type Registry } from 'prom-client';
import type { Database } from '../../db/client';
import {
  chainWatcherPositions,
  failedPayoutCounts,
  oldestPendingDeliveryAge,
  openPayoutAges,
  paymentCompletionHistogram,
  paymentCountsByStatus,
  paymentOutcomeCounts,
  paymentExceptionCounts,
  paymentTransitionCounts,
  simpleOrderCountsByStatus,
  payoutConfirmationHistogram,
  webhookAttemptCounts,
  webhookAttemptHistogram,
  webhookDeliveryCountsByStatus,
  type BucketCounts,
} from '../../db/queries/metrics';
import { getPaymentsSetting } from '../../db/queries/platform-settings';

/**
 * The series read from Postgres at scrape time, in `registry`: payments, webhook deliveries, payouts
 * and the chain watchers. Every API process reports the same totals: aggregate them with max, not sum.
 */
export function registerPostgresMetrics(registry: Registry, db: Database): void {
  gaugeFromRows(registry, 'svc_payments', 'Checkout sessions by status (read from Postgres at scrape time)', ['status'], () =>
    paymentCountsByStatus(db),
  );
  gaugeFromRows(registry, 'svc_payment_transitions', 'Checkout session transitions, by the event each wrote', ['event'], () =>
    paymentTransitionCounts(db),
  );
  gaugeFromRows(registry, 'svc_simple_orders', 'Simple-API orders by status', ['status'], () => simpleOrderCountsByStatus(db));
  gaugeFromRows(
    registry,
    'svc_payment_exceptions',
    'Money off the happy path, by kind and status (open: waiting for an operator)',
    ['kind', 'status'],
    () => paymentExceptionCounts(db),
  );
  gaugeFromRows(registry, 'svc_webhook_deliveries', 'Webhook deliveries by status (read from Postgres at scrape time)', ['status'], () =>
    webhookDeliveryCountsByStatus(db),
  );
  gaugeFromRows(
    registry,
    'svc_webhook_attempts',
    'Webhook delivery attempts by outcome (read from Postgres at scrape time)',
    ['outcome'],
    () => webhookAttemptCounts(db),
  );
  new DatabaseHistogram(
    registry,
    'svc_webhook_attempt_duration_seconds',
    'Webhook attempts by outcome and how long each took',
    'outcome',
    LATENCY_BUCKETS,
    () => webhookAttemptHistogram(db, LATENCY_BUCKETS),
  );
  gaugeFromRows(registry, 'svc_payment_outcomes', 'Checkout sessions by status, rail and network', ['status', 'rail_type', 'network'], () =>
    paymentOutcomeCounts(db),
  );
  new DatabaseHistogram(
    registry,
    'svc_payment_completion_seconds',
    'Completed checkout sessions by rail: time from creation to completion',
    'rail_type',
    PAYMENT_BUCKETS,
    () => paymentCompletionHistogram(db, PAYMENT_BUCKETS),
  );
  new DatabaseHistogram(
    registry,
    'svc_payout_confirmation_seconds',
    'Confirmed payouts by kind: time from planning to confirmation on chain',
    'kind',
    PAYMENT_BUCKETS,
    () => payoutConfirmationHistogram(db, PAYMENT_BUCKETS),
  );
  // A payout neither confirmed nor failed: the age of the oldest per network (alert when it grows).
  gaugeFromRows(
    registry,
    'svc_payout_oldest_open_age_seconds',
    'Age of the oldest payout neither confirmed nor failed, per network',
    ['network'],
    () => openPayoutAges(db),
  );
  gaugeFromRows(
    registry,
    'svc_webhook_oldest_pending_delivery_age_seconds',
    'Age of the oldest webhook delivery still being attempted (0 with none)',
    [],
    async () => [{ count: await oldestPendingDeliveryAge(db) }],
  );
  // The platform-wide kill switch (1: new payments accepted, 0: refused).
  gaugeFromRows(
    registry,
    'svc_payments_enabled',
    'Whether new payments are accepted (the operator’s kill switch): 1 or 0',
    [],
    async () => [{ count: (await getPaymentsSetting(db)).enabled ? 1 : 0 }],
  );

  // A payout that failed for a reason a retry cannot fix waits for an operator
  // (POST /admin/v1/payouts/{id}/retry); any series above 0 is worth an alert.
  gaugeFromRows(
    registry,
    'svc_payouts_failed',
    'Payouts given up and waiting for an operator’s retry, by network and kind',
    ['network', 'kind'],
    () => failedPayoutCounts(db),
  );

  // A watcher falling behind (lag) or stopped (the last scan's age grows) delays every
  // chain-proven payment of its network. Written by whichever worker holds the network's lease.
  const positions = () => chainWatcherPositions(db);
  gaugeFromRows(
    registry,
    'svc_chain_watcher_lag_blocks',
    'Blocks between the head and the confirmed cursor at the last scan, per network',
    ['network'],
    () => positions().then((rows) => rows.map((r) => ({ network: r.network, count: r.lag }))),
  );
  gaugeFromRows(registry, 'svc_chain_watcher_scan_age_seconds', 'Seconds since the network was last scanned', ['network'], () =>
    positions().then((rows) => rows.map((r) => ({ network: r.network, count: r.age }))),
  );
}

/** A gauge whose series are rows of a query: each row's label columns name the series, `count` is its value. */
export function gaugeFromRows<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labels: L[],
  read: () => Promise<(Record<L, string> & { count: number })[]>,
) {
  return new Gauge({
    name,
    help,
    labelNames: labels,
    registers: [registry],
    async collect() {
      // A scrape while Postgres is down fails the scrape (the deadline applies): Prometheus shows the gap.
      const rows = await read();
      this.reset();
      for (const row of rows) {
        const series = {} as Record<L, string>;
        for (const l of labels) series[l] = row[l];
        this.set(series, Number(row.count));
      }
    },
  });
}

/** Seconds: webhook attempts (10 s is the delivery timeout). */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Seconds: a payment or a payout, from a minute to a day. */
const PAYMENT_BUCKETS = [30, 60, 120, 300, 600, 1800, 3600, 21600, 86400] as const;

/**
 * A Prometheus histogram whose buckets are counted in Postgres at scrape time (every API process
 * reports the same figures; aggregate with max, not sum). Exposed with the histogram type, so
 * histogram_quantile() reads it as any other.
 */
class DatabaseHistogram extends Histogram<string> {
  constructor(
    registry: Registry,
    private readonly metricName: string,
    help: string,
    private readonly label: string,
    private readonly bounds: readonly number[],
    private readonly read: () => Promise<(BucketCounts & { label: string })[]>,
  ) {
    super({ name: metricName, help, labelNames: [label], buckets: [...bounds], registers: [registry] });
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const rows = await this.read();
    const values: MetricValueWithName<string>[] = rows.flatMap((row) => [
      ...this.bounds.map((le, i) => ({
        metricName: `${this.metricName}_bucket`,
        labels: { [this.label]: row.label, le },
        value: row.buckets[i]!,
      })),
      { metricName: `${this.metricName}_bucket`, labels: { [this.label]: row.label, le: '+Inf' }, value: row.count },
      { metricName: `${this.metricName}_sum`, labels: { [this.label]: row.label }, value: row.sum },
      { metricName: `${this.metricName}_count`, labels: { [this.label]: row.label }, value: row.count },
    ]);
    // The name, help and type as prom-client writes them for a histogram (its own text-format reader,
    // not typed in its declarations; its get() would call back into ours); the values are Postgres's.
    const own = (
      Histogram.prototype as unknown as {
        getForPromString: (this: Histogram<string>) => Promise<MetricObjectWithValues<MetricValueWithName<string>>>;
      }
    ).getForPromString;
    return { ...(await own.call(this)), values };
  }

  /** What the registry reads for the text format (prom-client's own histogram reads its hash map there). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    return this.get();
  }
}
