import net from 'node:net';
import Fastify from 'fastify';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import errors, { clientErrorHandler, frameworkErrorHandler } from '../api/plugins/errors';
import { checkMetricsAccess, processMetrics } from '../api/plugins/metrics';
import type { Database } from '../db/client';
import { AppError } from '../domain/errors';
import { randomBase62 } from '../domain/ids';

/** How long a scrape waits for the SDK's exporter (Prometheus's own default timeout is 10 s). */
const EXPORTER_TIMEOUT_MS = 5000;

export interface WorkerMetricsOptions {
  /** Where Prometheus scrapes: HOST and WORKER_METRICS_PORT. */
  host: string;
  port: number;
  /** METRICS_TOKEN, the API's: required as a Bearer token when set. */
  token: string | null;
  production: boolean;
  /** Failed tokens are counted in Postgres per client address, with the API's. */
  db: Database;
  /** The Temporal SDK's exporter on loopback (installWorkerRuntime), or null when none runs. */
  exporterUrl: string | null;
  logger: Logger;
}

/**
 * The worker's GET /metrics: the Temporal SDK's Prometheus exposition and the process's own metrics,
 * behind the API's METRICS_TOKEN and its rules (checkMetricsAccess). The SDK's exporter is native code that serves anyone who
 * asks, so it listens on loopback only, on a port of its own, and this server answers for it on
 * WORKER_METRICS_PORT, in the API's error envelope.
 */
export async function startWorkerMetrics(options: WorkerMetricsOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify({
    loggerInstance: options.logger.child({ component: 'worker-metrics' }, { level: 'warn' }),
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    requestIdHeader: false,
    genReqId: () => `req_${randomBase62(20)}`,
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  });
  await app.register(errors);
  // The worker process's CPU, memory and event loop, beside the SDK's task metrics.
  const own = processMetrics(new Registry());
  app.get('/metrics', async (request, reply) => {
    await checkMetricsAccess(options.db, request, options);
    if (!options.exporterUrl) throw new AppError('NotFound', 'Not found.');
    const res = await fetch(options.exporterUrl, { signal: AbortSignal.timeout(EXPORTER_TIMEOUT_MS) }).catch((err: unknown) => {
      request.log.warn({ err }, 'worker metrics: the Temporal SDK exporter did not answer');
      throw new AppError('Unavailable', 'The worker’s metrics exporter did not answer; the scrape may be retried.');
    });
    if (!res.ok) throw new AppError('Unavailable', 'The worker’s metrics exporter did not answer; the scrape may be retried.');
    const sdk = await res.text();
    // Both in the same text format: the SDK's families, then the process's own.
    return reply.type(own.contentType).send(`${sdk}${sdk === '' || sdk.endsWith('\n') ? '' : '\n'}${await own.metrics()}`);
  });
  await app.listen({ host: options.host, port: options.port });
  return { url: `http://${options.host}:${options.port}/metrics`, close: () => app.close() };
}

/**
 * A loopback port for the SDK's exporter, free a moment ago (the OS picks it). The exporter is
 * given an address, not a listening socket, so the port is found first and handed over.
 */
export function loopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
