import type { FastifyRequest } from 'fastify';

/**
 * A form post from another site (or an opaque "null" origin, such as a sandboxed frame) could start
 * or cancel a customer's payment. Browsers send Origin on form posts, so a foreign one is refused;
 * server-side clients (the provider's test helper, curl) send none.
 */
export function isForeignFormPost(request: FastifyRequest, ownOrigin: string): boolean {
  if (request.method !== 'POST') return false;
  const origin = request.headers.origin;
  return origin !== undefined && origin !== ownOrigin;
}
