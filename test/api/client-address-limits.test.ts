import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { loadConfig } from '../../src/config';
import { randomBase62 } from '../../src/domain/ids';
import { ADMIN_TOKEN, useTestApp } from '../support/harness';
import { freePort } from '../support/free-port';
import { http } from '../support/http';

// The per-address limits (plugin connect, admin token) key on the client address that
// TRUST_PROXY allows: the socket's peer unless that peer is a trusted proxy. Real sockets, since the
// peer address is the point; two API processes on one database share the limits (Postgres).

// No proxy trusted (the default); the peer is 127.0.0.1.
const ctx = useTestApp({}, { listen: true });

// A second API process on the same database, behind a proxy at 127.0.0.1.
let proxied: FastifyInstance;
let proxiedUrl = '';
beforeAll(async () => {
  const port = await freePort();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: ctx.config.databaseUrl,
    TEMPORAL_ADDRESS: ctx.config.temporal.address,
    ADMIN_TOKEN,
    SECRETS_KEY: ctx.config.secretsKey.toString('hex'),
    ALLOW_PRIVATE_URLS: 'true',
    SANDBOX_ENABLED: 'true',
    LOG_LEVEL: 'silent',
    PORT: String(port),
    TRUST_PROXY: '127.0.0.1/32,::1',
  });
  proxied = await buildApp({ config, db: ctx.db, temporal: ctx.temporal, providers: ctx.providers }, { logger: false });
  await proxied.listen({ port, host: '127.0.0.1' });
  proxiedUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await proxied?.close();
});
beforeEach(async () => {
  await ctx.db.sql`delete from auth_failures`;
});

/** A failed connect: an unknown merchant id each time, so only the per-address limit can bite. */
const failedConnect = (base: string, forwardedFor?: string) =>
  http('POST', `${base}/api/v1/plugin/connect`, {
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    body: {
      merchant_id: `MER_${randomBase62(16)}`,
      api_key: `svc_live_${randomBase62(32)}`,
      security_code: 'AAAAAA-BBBBBB-CCCCCC-DDDDDD',
      platform: 'custom',
      site_url: 'https://shop.example',
      callback_url: 'https://shop.example/cb',
      plugin_version: '1.1.0',
    },
  });

const admin = (base: string, token: string, forwardedFor?: string) =>
  http('GET', `${base}/admin/v1/settings/payments`, {
    headers: { authorization: `Bearer ${token}`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
  });

describe('plugin connect per-address limit and X-Forwarded-For', () => {
  it('ignores X-Forwarded-For from an untrusted peer: 60 attempts with 60 different headers hit the limit after 20', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await failedConnect(ctx.baseUrl, `203.0.113.${i + 1}`)).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(40).fill(429));
    const subjects = await ctx.db.sql`select distinct subject from auth_failures where dimension = 'ip'`;
    expect(subjects.map((r) => r.subject)).toEqual(['127.0.0.1']);
  });

  it('behind a trusted proxy limits the forwarded address, and only that one', async () => {
    for (let i = 0; i < 20; i++) expect((await failedConnect(proxiedUrl, '198.51.100.7')).status).toBe(401);
    const limited = await failedConnect(proxiedUrl, '198.51.100.7');
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ ok: false, error: 'RateLimited' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // A client spoofing a left-hand entry is still the address the proxy saw (the right-most one).
    expect((await failedConnect(proxiedUrl, '1.2.3.4, 198.51.100.7')).status).toBe(429);
    // Another client behind the same proxy, and the proxy itself, are not limited.
    expect((await failedConnect(proxiedUrl, '198.51.100.8')).status).toBe(401);
    expect((await failedConnect(ctx.baseUrl)).status).toBe(401);
  });
});

describe('the admin token limit (20 a minute per client address)', () => {
  it('refuses the 21st wrong token with 429 and Retry-After across two API processes, and lets the right one through on both', async () => {
    // Alternating processes: the count lives in Postgres, not in either of them.
    for (let i = 0; i < 20; i++) {
      const res = await admin(i % 2 === 0 ? ctx.baseUrl : proxiedUrl, `wrong-token-${i}-0123456789abcdef`, '127.0.0.1');
      expect(res.status, `attempt ${i + 1}`).toBe(401);
    }
    for (const base of [ctx.baseUrl, proxiedUrl]) {
      const res = await admin(base, 'wrong-again-0123456789abcdef', '127.0.0.1');
      expect(res.status).toBe(429);
      expect(res.json).toEqual({
        ok: false,
        error: 'RateLimited',
        message: expect.any(String),
        requestId: res.headers.get('x-request-id'),
      });
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // The right token is checked first: someone else's failures at this address do not lock it out.
      expect((await admin(base, ADMIN_TOKEN, '127.0.0.1')).status).toBe(200);
    }
    // Another client address (behind the trusted proxy) still gets in with the right token.
    expect((await admin(proxiedUrl, ADMIN_TOKEN, '198.51.100.20')).status).toBe(200);
    // Once the window has passed, a wrong token at the limited address is a plain 401 again.
    await ctx.db.sql`update auth_failures set occurred_at = occurred_at - interval '61 seconds' where dimension = 'admin_ip'`;
    expect((await admin(ctx.baseUrl, 'wrong-later-0123456789abcdef')).status).toBe(401);
  });

  it('does not count requests that present no token, nor right tokens', async () => {
    for (let i = 0; i < 25; i++) {
      expect((await http('GET', `${ctx.baseUrl}/admin/v1/settings/payments`)).status).toBe(401);
      expect((await admin(ctx.baseUrl, ADMIN_TOKEN)).status).toBe(200);
    }
    expect((await ctx.db.sql`select count(*)::int as n from auth_failures`)[0]!.n).toBe(0);
  });
});
