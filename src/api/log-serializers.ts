import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { pathOf } from '../domain/request-path';
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
  const path = pathOf(url);
  return path === url ? url : `${path}?[query not logged]`;
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

// Each request gets its own logger, whose lines carry the request's id. Bound the usual way (a pino
// binding), the id went through the wildcard redaction paths (`*.apiKey`, …) on every request, about
// a microsecond each, for lines that at the default levels a request rarely writes. So the id is
// kept on the request's logger and added to a line only when one is written (pino's mixin). It is
// ours or a header that matched SAFE_REQUEST_ID, never a secret, so it needs no redaction.
const REQUEST_ID = Symbol('requestId');

/** pino's `mixin`: the request's id on a line its logger (or a child of it) writes, nothing elsewhere. */
export function requestIdMixin(_line: object, _level: number, logger: object): object {
  const id = (logger as { [REQUEST_ID]?: string })[REQUEST_ID];
  return id === undefined ? {} : { reqId: id };
}

/** Fastify's `childLoggerFactory`: the request's logger, holding its id for requestIdMixin. */
export function requestChildLogger<L extends { child(bindings: object, options?: object): L }>(
  logger: L,
  bindings: { reqId?: unknown },
  options: object,
): L {
  // Fastify passes empty options unless a route sets a log level; pino has a fast path without any.
  const child = isEmpty(options) ? logger.child({}) : logger.child({}, options);
  (child as { [REQUEST_ID]?: unknown })[REQUEST_ID] = bindings.reqId;
  return child;
}

function isEmpty(options: object): boolean {
  for (const _ in options) return false;
  return true;
}

/**
 * Fastify's lines about requests, as one line per request: written when it is answered, with the
 * request beside the answer, where Fastify writes two (received, then answered). The line on arrival
 * stays, at debug, for a request that never gets an answer.
 *
 * The answered line is safe by construction: the request as serializeRequest writes it (method,
 * path without its query, host, client address), the status, the time, the request id. So it skips
 * the redaction paths, which cost about 6 µs a line (pino runs every path on every field, the message
 * included): at LOG_LEVEL=info that line is written for every request. Every other line about a
 * request, a failed one's included, goes through them.
 */
export class OneLinePerRequest extends LogController {
  #answered: FastifyBaseLogger | undefined;

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
      return;
    }
    this.#answered ??= request.server.log.child({}, { redact: { paths: [], censor: '[redacted]' } });
    this.#answered.info({ reqId: request.id, req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
