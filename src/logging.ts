import pino, { type Logger } from 'pino';

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
