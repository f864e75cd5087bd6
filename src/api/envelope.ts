import type { FastifyRequest } from 'fastify';
import type { AppError } from '../domain/errors';

// Two public faces, two envelopes: the merchant API v1 (and everything that is not
// the simple API) answers { ok:false, error, message, requestId }; the simple API under /api
// (not /api/v1) answers { status:"error", error, message }. Routes know their face (the simple
// API's plugin sets its own error handler); the URL decides only where no route was matched.

export type Face = 'v1' | 'simple';

export function faceOfUrl(url: string): Face {
  return url.startsWith('/api/') && !url.startsWith('/api/v1/') && url !== '/api/v1' ? 'simple' : 'v1';
}

export function errorBody(request: FastifyRequest, err: AppError, face: Face): Record<string, unknown> {
  if (face === 'simple') {
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
