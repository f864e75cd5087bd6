import fp from 'fastify-plugin';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../../db/client';
import {
  chainWatcherPositions,
  failedPayoutCounts,
  paymentCountsByStatus,
  paymentExceptionCounts,
  paymentTransitionCounts,
  simpleOrderCountsByStatus,
  webhookAttemptCounts,
  webhookAttemptLatency,
  webhookDeliveryCountsByStatus,
} from '../../db/queries/metrics';
import { AppError } from '../../domain/errors';
import { bearerToken } from './merchant-auth';
import { checkOperatorToken } from './rate-limit';

export interface MetricsOptions {
  db: Database;
  /** METRICS_TOKEN: required as a Bearer token when set. */
  token: string | null;
  /** Without a token, /metrics is served outside production only: it tells who pays how much, and when. */
  production: boolean;
  /** One registry per app (tests build several apps in one process). */
  registry?: Registry;
}

/**
 * GET /metrics in Prometheus text format: request latency per route pattern (never the raw URL, so
 * ids do not become labels), payments by status and webhook delivery outcomes read from Postgres at
 * scrape time (every API process reports the same totals: aggregate them with max, not sum), and the
 * process's own metrics.
 */
export default fp<MetricsOptions>(
  async (app, options) => {
    const registry = options.registry ?? new Registry();
    collectDefaultMetrics({ register: registry });
    const duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route pattern',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    const db = options.db;
    gaugeFromRows(registry, 'svc_payments', 'Checkout sessions by status (read from Postgres at scrape time)', ['status'], () => paymentCountsByStatus(db));
    gaugeFromRows(registry, 'svc_payment_transitions', 'Checkout session transitions, by the event each wrote', ['event'], () => paymentTransitionCounts(db));
    gaugeFromRows(registry, 'svc_simple_orders', 'Simple-API orders by status', ['status'], () => simpleOrderCountsByStatus(db));
    gaugeFromRows(registry, 'svc_payment_exceptions', 'Money off the happy path, by kind and status (open: waiting for an operator)', ['kind', 'status'], () =>
      paymentExceptionCounts(db),
    );
    gaugeFromRows(registry, 'svc_webhook_deliveries', 'Webhook deliveries by status (read from Postgres at scrape time)', ['status'], () =>
      webhookDeliveryCountsByStatus(db),
    );
    gaugeFromRows(registry, 'svc_webhook_attempts', 'Webhook delivery attempts by outcome (read from Postgres at scrape time)', ['outcome'], () => webhookAttemptCounts(db));
    gaugeFromRows(registry, 'svc_webhook_attempt_duration_seconds', 'Webhook attempt latency over the last hour, by quantile', ['quantile'], () =>
      webhookAttemptLatency(db).then((rows) => rows.map((r) => ({ quantile: r.quantile, count: r.seconds }))),
    );

    // Decisions §14: a payout that failed for a reason a retry cannot fix waits for an operator
    // (POST /admin/v1/payouts/{id}/retry); any series above 0 is worth an alert.
    gaugeFromRows(registry, 'svc_payouts_failed', 'Payouts given up and waiting for an operator’s retry, by network and kind', ['network', 'kind'], () => failedPayoutCounts(db));

    // Issue 14: a watcher falling behind (lag) or stopped (the last scan's age grows) delays every
    // chain-proven payment of its network. Written by whichever worker holds the network's lease.
    const positions = () => chainWatcherPositions(db);
    gaugeFromRows(registry, 'svc_chain_watcher_lag_blocks', 'Blocks between the head and the confirmed cursor at the last scan, per network', ['network'], () =>
      positions().then((rows) => rows.map((r) => ({ network: r.network, count: r.lag }))),
    );
    gaugeFromRows(registry, 'svc_chain_watcher_scan_age_seconds', 'Seconds since the network was last scanned', ['network'], () =>
      positions().then((rows) => rows.map((r) => ({ network: r.network, count: r.age }))),
    );

    app.addHook('onResponse', async (request, reply) => {
      // Unmatched URLs (404s) share one label, so a scanner cannot grow the series without bound.
      const route = request.routeOptions.url ?? 'unmatched';
      duration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    });

    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (options.token === null && options.production) throw new AppError('NotFound', 'Not found.');
      if (options.token !== null) {
        // Limited as the admin token is (decisions §13), on a count of its own.
        await checkOperatorToken(db, 'metrics', { ip: request.ip, presented: bearerToken(request) }, options.token, () => new AppError('Unauthorized', 'The metrics token is invalid or missing.'));
      }
      const body = await registry.metrics();
      return reply.type(registry.contentType).send(body);
    });
  },
  { name: 'metrics' },
);

/** A gauge whose series are rows of a query: each row's label columns name the series, `count` is its value. */
function gaugeFromRows<L extends string>(registry: Registry, name: string, help: string, labels: L[], read: () => Promise<(Record<L, string> & { count: number })[]>) {
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
