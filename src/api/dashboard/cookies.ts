import { randomBytes } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../../domain/credentials';
import { AppError } from '../../domain/errors';

// The dashboard's two cookies, both for /dashboard only and Secure in production:
// - the session: HttpOnly (no script reads it), SameSite=Lax (a link from a mail arrives signed in);
// - the CSRF token: readable by the app's own script, which repeats it in the x-csrf-token header of
//   every write (double submit). Another site can make a browser send the cookie, never read it to
//   set the header; SameSite=Strict keeps it off cross-site requests altogether.

export const SESSION_COOKIE = 'svc_dash_session';
export const CSRF_COOKIE = 'svc_dash_csrf';
export const CSRF_HEADER = 'x-csrf-token';

export function cookieOptions(secure: boolean, kind: 'session' | 'csrf'): CookieSerializeOptions {
  return { path: '/dashboard', secure, httpOnly: kind === 'session', sameSite: kind === 'session' ? 'lax' : 'strict' };
}

export function issueCsrfCookie(reply: FastifyReply, secure: boolean): void {
  void reply.setCookie(CSRF_COOKIE, randomBytes(24).toString('base64url'), cookieOptions(secure, 'csrf'));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * onRequest of everything under /dashboard/: a visitor without a CSRF cookie gets one, and a write to
 * the API must carry the cookie's value in the header (and, when the browser names one, come from
 * our own origin). Refused writes are 403 Forbidden before anything is parsed or done.
 */
export function csrfGuard(ownOrigin: string, secure: boolean) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const cookie = request.cookies[CSRF_COOKIE];
    if (!cookie && !request.url.startsWith('/dashboard/assets/')) issueCsrfCookie(reply, secure);
    if (SAFE_METHODS.has(request.method) || !request.url.startsWith('/dashboard/api/')) return;
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin) throw new AppError('Forbidden', 'Cross-site requests are refused.');
    const header = request.headers[CSRF_HEADER];
    if (!cookie || typeof header !== 'string' || !constantTimeEqual(header, cookie)) {
      throw new AppError('Forbidden', 'The CSRF token is missing or wrong: reload the page and try again.');
    }
  };
}
