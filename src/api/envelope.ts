import type { FastifyRequest } from 'fastify';
import type { AppError } from '../domain/errors';

// Two public faces, two envelopes (decisions §3): the merchant API v1 (and everything that is not
// the simple API) answers { ok:false, error, message, requestId }; the simple API under /api
// (not /api/v1) answers { status:"error", error, message }.

export function usesSimpleEnvelope(url: string): boolean {
  return url.startsWith('/api/') && !url.startsWith('/api/v1/') && url !== '/api/v1';
}

export function errorBody(request: FastifyRequest, err: AppError): Record<string, unknown> {
  if (usesSimpleEnvelope(request.url)) {
    return { status: 'error', error: err.code, message: err.message };
  }
  return {
    ok: false,
    error: err.code,
    message: err.message,
    requestId: request.id,
    ...(err.options.details ? { details: err.options.details } : {}),
  };
}
