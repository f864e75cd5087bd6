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
 * onRequest of everything under /dashboard/: a visitor without a CSRF cookie gets one (the built
 * files excepted: they are fetched by the page that already set it).
 */
export function csrfCookieIssuer(secure: boolean) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.cookies[CSRF_COOKIE] && request.routeOptions.url !== '/dashboard/assets/:file') issueCsrfCookie(reply, secure);
  };
}

/**
 * onRequest of the internal API's routes: a write must carry the CSRF cookie's value in the header
 * (and, when the browser names one, come from our own origin). Refused writes are 403 Forbidden
 * before anything is parsed or done. It is added in the API's own plugin, so it belongs to the
 * routes and not to a spelling of their path: whatever form of the URL the router matched
 * (percent-encoded, another case, doubled slashes), the route it reached has this guard.
 */
export function csrfWriteGuard(ownOrigin: string) {
  return async (request: FastifyRequest) => {
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin) throw new AppError('Forbidden', 'Cross-site requests are refused.');
    const cookie = request.cookies[CSRF_COOKIE];
    const header = request.headers[CSRF_HEADER];
    if (!cookie || typeof header !== 'string' || !constantTimeEqual(header, cookie)) {
      throw new AppError('Forbidden', 'The CSRF token is missing or wrong: reload the page and try again.');
    }
  };
}
