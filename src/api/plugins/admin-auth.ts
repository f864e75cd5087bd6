import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../../domain/credentials';
import { AppError } from '../../domain/errors';
import { bearerToken } from './merchant-auth';

/** preHandler for /admin/v1: the operator's ADMIN_TOKEN, never a merchant key. */
export function adminAuth(adminToken: string) {
  return async (request: FastifyRequest) => {
    const token = bearerToken(request);
    if (!token || !constantTimeEqual(token, adminToken)) {
      throw new AppError('Unauthorized', 'The admin token is invalid or missing.');
    }
  };
}
