import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/client';
import { AppError } from '../../domain/errors';
import { bearerToken } from './merchant-auth';
import { checkOperatorToken } from './rate-limit';

const denied = () => new AppError('Unauthorized', 'The admin token is invalid or missing.');

/**
 * onRequest hook of /admin/v1: the operator's ADMIN_TOKEN, never a merchant key. It runs before the
 * body is parsed and before any route's validation, so a request without the right token is 401
 * whatever it carries: an unauthenticated caller learns nothing about a route's schema. Wrong
 * tokens are limited per client address; the right one always passes.
 */
export function adminAuth(db: Database, adminToken: string) {
  return async (request: FastifyRequest) => {
    await checkOperatorToken(db, 'admin', { ip: request.ip, presented: bearerToken(request) }, adminToken, denied);
  };
}
