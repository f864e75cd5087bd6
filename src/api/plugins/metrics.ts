import type { Client } from '@temporalio/client';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
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
import { AppError } from '../../domain/errors';
import { payoutTaskQueue } from '../../domain/task-queues';
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
  /** The Temporal server and the workers' task queue (TEMPORAL_TASK_QUEUE), whose backlog is reported. */
  temporal?: { client: Client; taskQueue: string };
}

/**
 * GET /metrics in Prometheus text format: request latency per route pattern (never the raw URL, so
 * ids do not become labels), payments by status and webhook delivery outcomes read from Postgres at
 * scrape time (every API process reports the same totals: aggregate them with max, not sum), and the
 * process's own metrics.
 */
export default fp<MetricsOptions>(
  async (app, options) => {
    const registry = processMetrics(options.registry ?? new Registry());
    const duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route pattern',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    const db = options.db;
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
    gaugeFromRows(
      registry,
      'svc_payment_outcomes',
      'Checkout sessions by status, rail and network',
      ['status', 'rail_type', 'network'],
      () => paymentOutcomeCounts(db),
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
    // Spec rule 1.2: the platform-wide kill switch (1: new payments accepted, 0: refused).
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

    if (options.temporal) {
      const backlog = taskQueueBacklog(options.temporal.client, options.temporal.taskQueue);
      gaugeFromRows(
        registry,
        'svc_task_queue_backlog',
        'Tasks waiting in a Temporal task queue for a worker (the server’s approximate count), by queue and kind of task',
        ['task_queue', 'task_type'],
        () => backlog().then((rows) => rows.map((r) => ({ task_queue: r.taskQueue, task_type: r.taskType, count: r.count }))),
      );
      gaugeFromRows(
        registry,
        'svc_task_queue_backlog_age_seconds',
        'How long the oldest task waiting in a Temporal task queue has waited (0 with none), by queue and kind of task',
        ['task_queue', 'task_type'],
        () => backlog().then((rows) => rows.map((r) => ({ task_queue: r.taskQueue, task_type: r.taskType, count: r.ageSeconds }))),
      );
    }

    app.addHook('onResponse', async (request, reply) => {
      // Unmatched URLs (404s) share one label, so a scanner cannot grow the series without bound.
      const route = request.routeOptions.url ? routeLabel(request.routeOptions.url) : 'unmatched';
      duration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    });

    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      await checkMetricsAccess(db, request, options);
      const body = await registry.metrics();
      return reply.type(registry.contentType).send(body);
    });
  },
  { name: 'metrics' },
);

/** The process's own metrics (CPU, memory, event loop, heap) in `registry`: the API's and a worker's. */
export function processMetrics(registry: Registry): Registry {
  collectDefaultMetrics({ register: registry });
  // prom-client's process counts are gauges named *_total, which the exposition format reserves for
  // counters (promtool check metrics refuses them); the same counts by type stay, without the suffix.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
    registry.removeSingleMetric(name);
  return registry;
}

/**
 * Who may read a /metrics, the API's or a worker's (src/worker/metrics-server.ts): with METRICS_TOKEN,
 * its bearer only, limited as the admin token is, on a count of its own; without one, anyone outside
 * production, and nobody in production (404, as if there were no such page).
 */
export async function checkMetricsAccess(
  db: Database,
  request: FastifyRequest,
  options: Pick<MetricsOptions, 'token' | 'production'>,
): Promise<void> {
  if (options.token === null) {
    if (options.production) throw new AppError('NotFound', 'Not found.');
    return;
  }
  await checkOperatorToken(
    db,
    'metrics',
    { ip: request.ip, presented: bearerToken(request) },
    options.token,
    () => new AppError('Unauthorized', 'The metrics token is invalid or missing.'),
  );
}

/** A gauge whose series are rows of a query: each row's label columns name the series, `count` is its value. */
function gaugeFromRows<L extends string>(
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

// The kinds of task a worker polls for, as the Temporal API numbers them (TaskQueueType). The
// workflows' queue carries both; the payouts' queue (domain/task-queues.ts) activities only.
const WORKFLOW_TASKS = 1;
const ACTIVITY_TASKS = 2;
/** TaskQueueKind NORMAL: the queue by its name, not a worker's sticky queue. */
const NORMAL_QUEUE = 1;
/** A scrape waits this long for the Temporal server, then reports no backlog rather than failing. */
const BACKLOG_TIMEOUT_MS = 3000;

interface TaskQueueBacklog {
  taskQueue: string;
  taskType: 'workflow' | 'activity';
  count: number;
  ageSeconds: number;
}

/**
 * The backlog of the queues the workers poll, read from the Temporal server's own statistics
 * (DescribeTaskQueue with reportStats) at scrape time. The SDK's worker metrics cannot say it: a
 * task is measured only once a worker takes it, so with every worker down or stuck they go quiet
 * while the queue grows. Read by the API, the queue stays visible when no worker runs. The count
 * is approximate (the server's own estimate), which is what an alert on growth needs. With the
 * server unreachable the series are left out of the scrape instead of failing it: a failed scrape
 * would page as the API being down, and /readyz already says that Temporal is. Both gauges of a
 * scrape share one round of requests.
 */
function taskQueueBacklog(client: Client, taskQueue: string): () => Promise<TaskQueueBacklog[]> {
  const queues = [
    { taskQueue, taskType: 'workflow', type: WORKFLOW_TASKS },
    { taskQueue, taskType: 'activity', type: ACTIVITY_TASKS },
    { taskQueue: payoutTaskQueue(taskQueue), taskType: 'activity', type: ACTIVITY_TASKS },
  ] as const;
  let last: { at: number; rows: Promise<TaskQueueBacklog[]> } | null = null;
  const read = () =>
    client.withDeadline(Date.now() + BACKLOG_TIMEOUT_MS, () =>
      Promise.all(
        queues.map(async (q) => {
          const { stats } = await client.workflowService.describeTaskQueue({
            namespace: client.options.namespace,
            taskQueue: { name: q.taskQueue, kind: NORMAL_QUEUE },
            taskQueueType: q.type,
            reportStats: true,
          });
          const age = stats?.approximateBacklogAge;
          return {
            taskQueue: q.taskQueue,
            taskType: q.taskType,
            count: Number(stats?.approximateBacklogCount ?? 0),
            ageSeconds: age ? Number(age.seconds ?? 0) + (age.nanos ?? 0) / 1e9 : 0,
          };
        }),
      ),
    );
  return () => {
    if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), rows: read().catch(() => []) };
    return last.rows;
  };
}

/** Seconds: webhook attempts (10 s is the delivery timeout). */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Seconds: a payment or a payout, from a minute to a day. */
const PAYMENT_BUCKETS = [30, 60, 120, 300, 600, 1800, 3600, 21600, 86400] as const;

/** The route pattern without its parameters' regular expressions: `/pay/:code(<uuid regex>)` → `/pay/:code`. */
export function routeLabel(url: string): string {
  return url.replace(/:(\w+)\((?:[^()]|\([^()]*\))*\)/g, ':$1');
}

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
