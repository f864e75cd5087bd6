import type { FastifyRequest } from 'fastify';
import { withoutSqlParams } from '../domain/sql-errors';

// Logs never carry query strings of credentialed routes, nor the values of a failed
// SQL query. Both reach the log through pino's serializers, so both are cut there, once.

/**
 * The request as logged: its path without the query string. A client may put a key in the query
 * (`?api_key=`), and no route of ours reads a credential or anything else worth keeping from it, so
 * no query string is logged at all, credentialed route or not.
 */
export function serializeRequest(request: FastifyRequest) {
  // Something logged under `req` that is not a request is left to the redaction rules.
  if (typeof request?.url !== 'string') return request as unknown as Record<string, unknown>;
  return {
    method: request.method,
    url: withoutQuery(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function withoutQuery(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : `${url.slice(0, q)}?[query not logged]`;
}

// Fields of postgres.js and drizzle errors that hold the query's values or a row's content: the
// parameters themselves, and `detail`, which repeats a failing row ("Failing row contains (…)") or
// a key ("Key (email)=(…)"). The query text itself has placeholders only and is kept.
const VALUE_FIELDS = new Set(['params', 'parameters', 'args', 'types', 'detail', 'where']);
const MAX_CAUSES = 5;

export interface SerializedError {
  [key: string]: unknown;
  type: string;
  message: string;
  stack: string;
}

/** pino's error serializer, without any SQL parameter; causes are serialized the same way. */
export function serializeError(err: unknown): SerializedError {
  return serializeOne(err, 0);
}

function serializeOne(err: unknown, depth: number): SerializedError {
  if (!(err instanceof Error)) return { type: typeof err, message: String(err), stack: '' };
  const message = withoutSqlParams(err.message);
  const out: SerializedError = {
    type: err.constructor?.name ?? err.name,
    message,
    // The stack's first line repeats the message.
    stack: (err.stack ?? '').split(err.message).join(message),
  };
  for (const [key, value] of Object.entries(err)) {
    if (key in out || key === 'cause' || VALUE_FIELDS.has(key)) continue;
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[key] = value;
  }
  if (err.cause !== undefined && depth < MAX_CAUSES) out.cause = serializeOne(err.cause, depth + 1);
  return out;
}
