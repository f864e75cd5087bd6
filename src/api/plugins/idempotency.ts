import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/client';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../../db/queries/idempotency-keys';
import { AppError } from '../../domain/errors';
import { pathOf } from '../../domain/request-path';

// A key binds to the whole request, its method, its path with the ids in it,
// and its body. The same Idempotency-Key from the same merchant on the same request returns the
// first response for 24 h; on another method, path or id it is 422 IdempotencyKeyReused (replaying
// would answer for another resource); with another body, 409 IdempotencyConflict; while the first
// request is still running, 409 Conflict. State lives in Postgres so every API process agrees.

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { merchantId: string; key: string };
  }
  interface FastifyInstance {
    /** preHandler, after authentication: replays or claims the request's Idempotency-Key. */
    idempotent: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
}

/** Key order does not change what a JSON body means, so it does not change its hash. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The method and the path as the route read it: the route's pattern with its parameters as decoded,
 * so `SV%5FA` and `SV_A` are one path and two ids are never one. The query string takes no part:
 * no idempotent route reads one.
 */
function requestTarget(request: FastifyRequest): string {
  const pattern = request.routeOptions.url;
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  const path = pattern
    ? pattern.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => encodeURIComponent(params[name] ?? ''))
    : pathOf(request.url);
  return `${request.method} ${path}`;
}

async function idempotencyPlugin(app: FastifyInstance, { db }: { db: Database }) {
  app.decorateRequest('idempotency', undefined);

  app.decorate('idempotent', async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0]! : header;
    if (key.length === 0 || key.length > 255) {
      throw new AppError('ValidationError', 'Idempotency-Key must be 1 to 255 characters.', {
        details: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 characters' }],
      });
    }
    const merchantId = request.merchant!.id;
    const route = requestTarget(request);
    const requestHash = createHash('sha256')
      .update(`${route}\n${canonicalJson(request.body ?? null)}`)
      .digest('hex');

    const existing = await claimIdempotencyKey(db, { merchantId, key, route, requestHash });
    if (!existing) {
      request.idempotency = { merchantId, key };
      return;
    }
    if (existing.route !== route) {
      throw new AppError(
        'IdempotencyKeyReused',
        'This Idempotency-Key was already used for another request (another method, path or id); use a new key for each request.',
      );
    }
    if (existing.requestHash !== requestHash) {
      throw new AppError('IdempotencyConflict', 'This Idempotency-Key was used with a different request.');
    }
    if (existing.state === 'in_progress') {
      // Retry-After tells a client that retries (the SDK does) that this 409 is "not yet", not "never".
      throw new AppError('Conflict', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
        retryAfterSeconds: 1,
      });
    }
    await reply
      .status(existing.responseStatus!)
      .header('idempotent-replayed', 'true')
      .type('application/json; charset=utf-8')
      .serializer((body: unknown) => JSON.stringify(body))
      .send(existing.responseBody);
  });

  // Store the response of a claimed request; release the key after a 5xx, which did nothing.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = undefined;
    if (reply.statusCode >= 500) {
      await releaseIdempotencyKey(db, claim);
    } else {
      const body: unknown = typeof payload === 'string' ? JSON.parse(payload) : null;
      await completeIdempotencyKey(db, claim, { status: reply.statusCode, body });
    }
    return payload;
  });
}

export default fp(idempotencyPlugin, { name: 'idempotency' });
