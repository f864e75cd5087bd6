import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, isUnavailable, type ErrorDetail } from '../../domain/errors';
import { errorBody } from '../envelope';

// The one place that turns errors into HTTP responses. Everything a client sees is an AppError;
// anything else becomes 500 InternalError with no stack trace or database message.

function toAppError(err: FastifyError | AppError | Error): AppError {
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

async function errorsPlugin(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(err);
    if (appError.status >= 500) {
      request.log.error({ err: isResponseSerializationError(err) ? err.cause : err }, 'request failed');
    }
    if (appError.options.retryAfterSeconds !== undefined) {
      void reply.header('retry-after', String(appError.options.retryAfterSeconds));
    }
    return reply.status(appError.status).send(errorBody(request, appError));
  });

  app.setNotFoundHandler((request, reply) => {
    const err = new AppError('NotFound', `No route for ${request.method} ${request.url.split('?')[0]}.`);
    return reply.status(404).send(errorBody(request, err));
  });
}

export default fp(errorsPlugin, { name: 'errors' });
