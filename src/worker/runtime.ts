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
 * Installs the worker process's Temporal runtime: its logs into pino (the native core's too), and,
 * with a port, the SDK's Prometheus metrics (task latencies, slots, polls, activity outcomes) on
 * http://host:port/metrics. Once per process, before any connection is made.
 */
export function installWorkerRuntime(options: { logger: Pino; metrics: { host: string; port: number } | null }): void {
  Runtime.install({
    logger: new PinoTemporalLogger(options.logger),
    telemetryOptions: {
      logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
      // Counters named `…_total`, as the exposition format wants them (`promtool check metrics` flags
      // the SDK's default names otherwise).
      ...(options.metrics
        ? { metrics: { prometheus: { bindAddress: `${options.metrics.host}:${options.metrics.port}`, countersTotalSuffix: true } } }
        : {}),
    },
  });
}
