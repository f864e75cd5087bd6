import pino, { type Logger } from 'pino';

/** What no log line of the API's or a worker's may show: credentials, secrets, the settlement mnemonic. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.api_key',
  '*.apiKey',
  '*.security_code',
  '*.securityCode',
  '*.secret',
  '*.webhook_secret',
  '*.password',
  '*.settlementMnemonic',
  '*.mnemonic',
];

export interface LogSettings {
  level: string;
  /** pino-pretty for a person at a terminal (`npm start`); JSON lines everywhere else. */
  pretty: boolean;
}

/**
 * The options every process's pino logger takes (Fastify's too), so the server, the worker and the
 * sandbox write one format. Redaction paths come from the caller: the API's list covers all three.
 */
export function pinoOptions(settings: LogSettings, extra: { name: string; redact?: string[] }): pino.LoggerOptions {
  return {
    name: extra.name,
    level: settings.level,
    ...(extra.redact ? { redact: { paths: extra.redact, censor: '[redacted]' } } : {}),
    ...(settings.pretty
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }
      : {}),
  };
}

export function createLogger(settings: LogSettings, extra: { name: string; redact?: string[] }): Logger {
  return pino(pinoOptions(settings, extra));
}

/** The transitions a payment's story is told by: one log line each. */
export type BusinessEventName =
  | 'session.created'
  | 'payment.pending'
  | 'payment.processing'
  | 'payment.completed'
  | 'payment.failed'
  | 'payment.expired'
  | 'payment.canceled'
  | 'payment.settled'
  | 'exception.recorded'
  | 'exception.refunded'
  | 'refund.requested'
  | 'payment.refunded'
  | 'payout.sent'
  | 'payout.confirmed'
  | 'payout.failed'
  | 'topup.credited'
  | 'webhook.delivered'
  | 'webhook.attempt_failed'
  | 'webhook.failed';

export interface BusinessEventFields {
  /** The payment (SV_…, or a simple order's transaction code): `grep <id>` follows it through every process's log. */
  paymentId: string;
  /** Null for a simple order, which has no merchant account. */
  merchantId: string | null;
  [field: string]: unknown;
}

/**
 * Writes one business event. Called by the use cases and activities after the change is stored and
 * only when this call made it (a retried activity or a replayed workflow logs nothing twice); never
 * from workflow code, which must stay deterministic.
 */
export type BusinessLog = (event: BusinessEventName, fields: BusinessEventFields) => void;

export const silentBusinessLog: BusinessLog = () => undefined;

/**
 * Business events as info lines of `logger`: `{"businessEvent":"payment.completed","paymentId":"SV_…",
 * "merchantId":"MER_…",…,"msg":"payment.completed SV_…"}`; the id is in the message too, so the pretty
 * format greps the same.
 */
export function businessLog(logger: Pick<Logger, 'info'>): BusinessLog {
  return (event, fields) => logger.info({ businessEvent: event, ...fields }, `${event} ${fields.paymentId}`);
}
