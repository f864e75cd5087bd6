import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger as Pino } from 'pino';
import { isCanonicalPaymentId, isPaymentLinkId, isTransactionCode } from '../domain/ids';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The Temporal SDK's logger, written through pino: the worker's lines, its activities' and its
 * workflows' (which carry workflowId, activityType, attempt…) have the service's format. Workflow ids
 * are business ids, so the line also names what it is about: paymentId (SV_…, a simple order's
 * transaction code), paymentLinkId (plink_…) or deliveryId (dlv_…, a webhook delivery's own workflow;
 * a delivery a payment's run makes is named by the worker's deliveryInLogs interceptor, and
 * webhook_deliveries.payment_id leads to its payment). A failed
 * attempt is one line with the error's type and message: its stack is the same on every retry, and
 * the workflow history keeps the full failure.
 */
export class PinoTemporalLogger implements Logger {
  constructor(private readonly pino: Pino) {}

  log(level: LogLevel, message: string, meta: LogMetadata = {}): void {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(meta)) {
      fields[key] = value instanceof Error ? { type: value.name, message: value.message } : value;
    }
    if (typeof meta.workflowId === 'string') Object.assign(fields, subjectOf(meta.workflowId));
    this.pino[LEVELS[level]](fields, message);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

function subjectOf(workflowId: string): Record<string, string> {
  if (isCanonicalPaymentId(workflowId) || isTransactionCode(workflowId)) return { paymentId: workflowId };
  if (isPaymentLinkId(workflowId)) return { paymentLinkId: workflowId };
  if (workflowId.startsWith('dlv_')) return { deliveryId: workflowId };
  return {};
}

/**
 * Seconds a task waits for a worker: the SDK's default buckets jump from 10 s to 100 s, where the
 * slow-start alert's thresholds are (ops/prometheus/alerts.yml), so quantiles there would be guesses.
 */
const START_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/**
 * Installs the worker process's Temporal runtime: its logs into pino (the native core's too), and,
 * with a port, the SDK's Prometheus exporter (task latencies, slots, polls, activity outcomes) on
 * http://127.0.0.1:port/metrics, loopback only: it has no access control of its own, and the
 * worker's metrics server (metrics-server.ts) serves it to Prometheus behind METRICS_TOKEN. Once per
 * process, before any connection is made.
 */
export function installWorkerRuntime(options: { logger: Pino; metrics: { port: number } | null }): void {
  Runtime.install({
    logger: new PinoTemporalLogger(options.logger),
    telemetryOptions: {
      logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
      ...(options.metrics
        ? {
            metrics: {
              prometheus: {
                bindAddress: `127.0.0.1:${options.metrics.port}`,
                // Counters named `…_total`, as the exposition format wants them (`promtool check
                // metrics` flags the SDK's default names otherwise).
                countersTotalSuffix: true,
                // Durations in seconds, Prometheus's unit and the API's (the SDK's default is milliseconds).
                useSecondsForDurations: true,
                histogramBucketOverrides: {
                  workflow_task_schedule_to_start_latency: START_BUCKETS,
                  activity_schedule_to_start_latency: START_BUCKETS,
                },
              },
            },
          }
        : {}),
    },
  });
}
