import type { Client } from '@temporalio/client';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { Database } from '../../db/client';
import { AppError } from '../../domain/errors';
import { bearerToken } from './merchant-auth';
import { registerPostgresMetrics } from './postgres-metrics';
import { checkOperatorToken } from './rate-limit';
import { registerTaskQueueBacklog } from './task-queue-backlog';

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
    registerPostgresMetrics(registry, db);
    if (options.temporal) registerTaskQueueBacklog(registry, options.temporal.client, options.temporal.taskQueue);

    // A route's label, worked out once per route pattern (a handful) rather than on every request.
    const labels = new Map<string, string>();
    const labelOf = (url: string) => labels.get(url) ?? labels.set(url, routeLabel(url)).get(url)!;
    app.addHook('onResponse', async (request, reply) => {
      // Unmatched URLs (404s) share one label, so a scanner cannot grow the series without bound.
      const route = request.routeOptions.url ? labelOf(request.routeOptions.url) : 'unmatched';
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

/** The route pattern without its parameters' regular expressions: `/pay/:code(<uuid regex>)` → `/pay/:code`. */
export function routeLabel(url: string): string {
  return url.replace(/:(\w+)\((?:[^()]|\([^()]*\))*\)/g, ':$1');
}
