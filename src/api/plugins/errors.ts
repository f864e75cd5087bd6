import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, isUnavailable, type ErrorDetail } from '../../domain/errors';
import { randomBase62 } from '../../domain/ids';
import { pathOf } from '../../domain/request-path';
import { errorBody, faceOfUrl, type Face } from '../envelope';

// The one place that turns errors into HTTP responses. Everything a client sees is an AppError;
// anything else becomes 500 InternalError with no stack trace or database message.

export function toAppError(err: FastifyError | AppError | Error): AppError {
  if (err instanceof AppError) return err;

  if (hasZodFastifySchemaValidationErrors(err)) {
    return new AppError('ValidationError', 'The request is not valid.', {
      details: err.validation.flatMap((v) => validationDetails(v, err.validationContext)),
    });
  }

  const fe = err as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PayloadTooLarge', 'The request body is larger than the limit of 64 KiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('BadRequest', 'Unsupported Content-Type; send application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BadRequest', 'The body is empty but Content-Type is application/json.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('BadRequest', 'The body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
      return new AppError('BadRequest', 'The URL is not valid: bad percent-encoding or invalid UTF-8.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('BadRequest', 'A path segment of the URL is too long.');
  }
  // Fastify's JSON parser reports malformed bodies as a SyntaxError with status 400.
  if (fe.statusCode === 400 && (err instanceof SyntaxError || fe.code === undefined)) {
    return new AppError('BadRequest', 'The body is not valid JSON.');
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError(fe.statusCode === 404 ? 'NotFound' : 'BadRequest', 'The request is not valid.');
  }
  if (isUnavailable(err)) {
    return new AppError('Unavailable', 'A backing service is unavailable; the request did nothing and may be retried.');
  }
  return new AppError('InternalError', 'An internal error occurred.');
}

type ZodValidation = { keyword: string; instancePath: string; message?: string; params?: Record<string, unknown> };

function validationDetails(v: ZodValidation, context: string | undefined): ErrorDetail[] {
  const base = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const prefix = context && context !== 'body' ? `${context}.` : '';
  const keys = v.params?.keys;
  if (v.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
    return keys.map((k) => ({ path: prefix + (base ? `${base}.${String(k)}` : String(k)), message: 'Unknown field.' }));
  }
  return [{ path: prefix + base, message: v.message ?? 'Invalid value.' }];
}

/** Answers one failed request in the envelope of `face`, with x-request-id, whatever failed. */
export function sendError(request: FastifyRequest, reply: FastifyReply, err: FastifyError | AppError | Error, face: Face) {
  const appError = toAppError(err);
  // A backing service down (503) is expected and already said to the client: a warning, not an error
  // (an outage would otherwise write an error line per request). Anything else unexpected is an error.
  if (appError.code === 'Unavailable') request.log.warn({ err }, 'request failed: a backing service is unavailable');
  else if (appError.status >= 500) request.log.error({ err: isResponseSerializationError(err) ? err.cause : err }, 'request failed');
  if (appError.options.retryAfterSeconds !== undefined) {
    void reply.header('retry-after', String(appError.options.retryAfterSeconds));
  }
  // Framework errors are answered before the onRequest hook that sets it, and past the onSend hook
  // that sets nosniff.
  void reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  return reply.status(appError.status).send(errorBody(request, appError, face));
}

/** The simple API's error handler, set in its own plugin: its routes answer in its envelope. */
export function simpleErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  return sendError(request, reply, err, 'simple');
}

/**
 * Fastify's own errors before routing (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH): no route, so
 * the URL picks the envelope. Passed to Fastify as its `frameworkErrors` option.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void sendError(request, reply, err, faceOfUrl(request.url));
}

/**
 * The HTTP parser's refusals (malformed request, headers over the limit, a request too slow): no
 * request exists yet, so the answer is written to the socket by hand, with an x-request-id, in the
 * envelope of the path on the request line when the parser kept it (the simple API's under /api/),
 * else in the v1 envelope. Passed to Fastify as its `clientErrorHandler` option.
 */
export function clientErrorHandler(err: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request headers are too large.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive.']
        : [400, 'The request is not valid HTTP.'];
  const requestId = `req_${randomBase62(20)}`;
  // Node's parser hands over the bytes it read (typed otherwise by Fastify, hence the check).
  const packet = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : null;
  const target = packet ? /^[A-Z]+ (\S+) HTTP\//.exec(packet.subarray(0, 2048).toString('latin1'))?.[1] : undefined;
  const body = JSON.stringify(
    target !== undefined && faceOfUrl(target) === 'simple'
      ? { status: 'error', error: 'BadRequest', message }
      : { ok: false, error: 'BadRequest', message, requestId },
  );
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nx-content-type-options: nosniff\r\n` +
        `connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

async function errorsPlugin(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    // A request that matched no route failed in a root hook: only its URL says which face it was for.
    sendError(request, reply, err, request.is404 ? faceOfUrl(request.url) : 'v1'),
  );

  app.setNotFoundHandler((request, reply) => {
    const err = new AppError('NotFound', `No route for ${request.method} ${pathOf(request.url)}.`);
    return sendError(request, reply, err, faceOfUrl(request.url));
  });
}

export default fp(errorsPlugin, { name: 'errors' });
