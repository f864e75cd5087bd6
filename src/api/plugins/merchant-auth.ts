import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Database } from '../../db/client';
import { findKeyByHash, touchKey } from '../../db/queries/api-keys';
import { classifyApiKey, constantTimeEqual, sha256Hex } from '../../domain/credentials';
import { AppError } from '../../domain/errors';
import { keyUsageRecorder } from './key-usage';
import type { TtlCache } from './ttl-cache';
import { rateLimitHeaders, type KeyRateLimiter } from './rate-limit';
import type { Scope } from '../../domain/scopes';
import { requestLogWriter } from '../../accounts/request-log';

export interface AuthenticatedMerchant {
  id: string;
  name: string;
  commissionBps: number;
  keyId: string;
  scopes: Scope[];
}

declare module 'fastify' {
  interface FastifyRequest {
    merchant?: AuthenticatedMerchant;
    /** The merchant and key a valid key named, with or without the route's scope: its request log's owner. */
    apiCaller?: { merchantId: string; keyId: string };
  }
  interface FastifyInstance {
    /** preHandler that authenticates a live key and requires `scope`. */
    requireScope(scope: Scope): preHandlerAsyncHookHandler;
    /**
     * The key `presented` authenticated again from Postgres, past the cache, with its merchant: for
     * what stays open longer than the cache window (an event stream). Throws as authentication does.
     */
    authenticateAgain(presented: string | null): Promise<AuthenticatedMerchant>;
  }
}

const invalidKey = () => new AppError('Unauthorized', 'The API key is invalid or missing.');

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer ([^\s]+)$/.exec(header.trim());
  return match ? match[1]! : null;
}

/** A key's row with its merchant's, as authentication reads them. */
export type FoundKey = NonNullable<Awaited<ReturnType<typeof findKeyByHash>>>;

/** Authenticates a live key; `used` records its use, which the caller need not await. */
export async function authenticateKey(
  find: (hash: string) => Promise<FoundKey | undefined>,
  presented: string | null,
  now: Date,
  used: (keyId: string) => void,
): Promise<AuthenticatedMerchant> {
  if (!presented) throw invalidKey();
  const key = classifyApiKey(presented);
  if (key.kind === 'retired') {
    throw new AppError('Unauthorized', 'This API key format is retired; use your live key (svc_live_…).');
  }
  if (key.kind === 'malformed') throw invalidKey();

  const hash = sha256Hex(key.key);
  const found = await find(hash);
  // The lookup is by hash; the constant-time compare guards against a timing side channel in it.
  if (!found || !constantTimeEqual(found.key.keyHash, hash)) throw invalidKey();
  if (found.key.revokedAt || (found.key.expiresAt && found.key.expiresAt <= now)) throw invalidKey();
  if (found.merchant.status !== 'approved') {
    throw new AppError('AccountNotApproved', 'The merchant account is not approved for live payments.');
  }
  used(found.key.id);
  return {
    id: found.merchant.id,
    name: found.merchant.name,
    commissionBps: found.merchant.commissionBps,
    keyId: found.key.id,
    scopes: found.key.scopes as Scope[],
  };
}

async function merchantAuthPlugin(
  app: FastifyInstance,
  opts: { db: Database; now?: () => Date; keyCache: TtlCache<FoundKey>; rateLimiter: KeyRateLimiter },
) {
  const now = opts.now ?? (() => new Date());
  // The key by hash through the cache: a hit decides without Postgres; revocation and expiry are still checked on every use.
  const find = (hash: string) => opts.keyCache.through(hash, () => findKeyByHash(opts.db, hash));
  const used = keyUsageRecorder(
    (keyId) => touchKey(opts.db, keyId),
    (err) => app.log.warn({ err }, "recording an API key's last use failed"),
  );
  app.decorateRequest('merchant', undefined);
  app.decorateRequest('apiCaller', undefined);
  // The merchant's request log (dashboard): one row per call a valid key made, recorded after the
  // answer has left and written in batches (accounts/request-log.ts); a failed write loses log lines, never a request.
  const requestLog = requestLogWriter(opts.db, (err) => app.log.warn({ err }, 'writing the request log failed'));
  app.addHook('onClose', async () => requestLog.close());
  app.addHook('onResponse', async (request, reply) => {
    const caller = request.apiCaller;
    if (!caller) return;
    // Named one by one: a spread with more fields after it costs Node 20 about a microsecond a call.
    requestLog.record({
      merchantId: caller.merchantId,
      keyId: caller.keyId,
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      requestId: request.id,
    });
  });
  app.decorate('authenticateAgain', (presented: string | null) =>
    authenticateKey(
      (hash) => findKeyByHash(opts.db, hash),
      presented,
      now(),
      () => undefined,
    ),
  );
  app.decorate('requireScope', (scope: Scope): preHandlerAsyncHookHandler => {
    return async (request, reply) => {
      const merchant = await authenticateKey(find, bearerToken(request), now(), used);
      request.apiCaller = { merchantId: merchant.id, keyId: merchant.keyId };
      // Per key, whatever the scope: a key without it still costs a request. On every answer, 429 too.
      const allowance = opts.rateLimiter.take(merchant.keyId);
      void reply.headers(rateLimitHeaders(allowance));
      if (!allowance.allowed) {
        throw new AppError('RateLimited', `This API key is over its limit of ${allowance.limit} requests a second.`, {
          retryAfterSeconds: allowance.reset,
        });
      }
      if (!merchant.scopes.includes(scope)) {
        throw new AppError('InsufficientScope', `This API key lacks the scope ${scope}.`);
      }
      request.merchant = merchant;
    };
  });
}

export default fp(merchantAuthPlugin, { name: 'merchant-auth' });
