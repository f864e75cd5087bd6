import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/client';
import { constantTimeEqual } from '../../domain/credentials';
import { AppError } from '../../domain/errors';
import { bearerToken } from './merchant-auth';
import { withAdminTokenLimit } from './rate-limit';

const denied = () => new AppError('Unauthorized', 'The admin token is invalid or missing.');

/**
 * preHandler for /admin/v1: the operator's ADMIN_TOKEN, never a merchant key. A presented token is
 * checked under the per-address limit of decisions §13, so it cannot be guessed at speed; a request
 * with no token guesses nothing and is refused without counting.
 */
export function adminAuth(db: Database, adminToken: string) {
  return async (request: FastifyRequest) => {
    const token = bearerToken(request);
    if (!token) throw denied();
    await withAdminTokenLimit(db, request.ip, async () => {
      if (!constantTimeEqual(token, adminToken)) throw denied();
    });
  };
}
