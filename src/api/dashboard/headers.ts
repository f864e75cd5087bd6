import type { FastifyReply } from 'fastify';

/**
 * As strict as the hosted pages' policy: scripts, styles and fetches from our own origin only. The
 * one inline <style> Radix's dialogs write (their scroll lock) carries the page's nonce.
 */
export function dashboardCsp(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function securityHeaders(reply: FastifyReply, nonce: string): FastifyReply {
  return reply
    .header('content-security-policy', dashboardCsp(nonce))
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store');
}
