import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { connectBody, freshIp, pluginConnect, type PluginMerchant as Merchant } from '../support/plugin-sites';

// POST /api/v1/plugin/connect: failed credential attempts are limited per merchant id
// and per client address, in Postgres, so the limits hold across API processes.
const ctx = useTestApp();

const connect = (
  body: unknown,
  options: { ip?: string; headers?: Record<string, string>; app?: Parameters<typeof pluginConnect>[0] } = {},
) => pluginConnect(options.app ?? ctx.app, body, options);

describe('rate limiting of failed attempts', () => {
  it('refuses a merchant id after 5 failures, right credentials included, with 429 and Retry-After, across two API processes', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const other = await createApprovedMerchant(ctx.app);
    // A second API process on the same database: the limit is shared through Postgres.
    const second = await buildApp({ config: ctx.config, db: ctx.db, temporal: ctx.temporal, providers: ctx.providers }, { logger: false });
    try {
      const apps = [ctx.app, second, second, ctx.app, second];
      for (const [i, app] of apps.entries()) {
        const res = await connect(connectBody(m, { security_code: other.securityCode }), { app, ip: freshIp() });
        expect(res.statusCode, `failure ${i + 1}`).toBe(401);
      }
      for (const app of [ctx.app, second]) {
        const res = await connect(connectBody(m), { app, ip: freshIp() });
        expect(res.statusCode).toBe(429);
        expect(res.json()).toMatchObject({ ok: false, error: 'RateLimited' });
        const retryAfter = Number(res.headers['retry-after']);
        expect(retryAfter).toBeGreaterThan(800);
        expect(retryAfter).toBeLessThanOrEqual(900);
      }
      // Another merchant from the same addresses is not affected.
      expect((await connect(connectBody(other))).statusCode).toBe(202);
      expect(await ctx.db.sql`select id from sites where merchant_id = ${m.id}`).toHaveLength(0);

      // Once the oldest failures leave the 15-minute window, attempts are allowed again.
      await ctx.db
        .sql`update auth_failures set occurred_at = occurred_at - interval '16 minutes' where dimension = 'merchant' and subject = ${m.id}`;
      expect((await connect(connectBody(m), { app: second })).statusCode).toBe(202);
    } finally {
      await second.close();
    }
  });

  it('counts concurrent failures exactly: of 8 simultaneous wrong attempts, 5 are checked and 3 refused', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const results = await Promise.all(Array.from({ length: 8 }, () => connect(connectBody(m, { security_code: 'WRONG' }))));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it('refuses a client IP after 20 failures, whatever merchant id it tries next', async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) {
      // Four guesses on each of five merchant ids: no single merchant id reaches its own limit.
      const res = await connect(
        { ...connectBody(await cachedMerchant()), merchant_id: `MER_guess${String(Math.floor(i / 4)).padStart(12, '0')}` },
        { ip },
      );
      expect(res.statusCode, `failure ${i + 1}`).toBe(401);
    }
    const m = await createApprovedMerchant(ctx.app);
    const blocked = await connect(connectBody(m), { ip });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await connect(connectBody(m), { ip: freshIp() })).statusCode).toBe(202);
  });

  it('does not count requests refused before any credential was checked', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const ip = freshIp();
    for (let i = 0; i < 8; i++) {
      expect((await connect(connectBody(m, { platform: 'wix' }), { ip })).statusCode).toBe(422);
      expect((await connect(connectBody(m), { ip, headers: { authorization: 'Bearer x' } })).statusCode).toBe(401);
    }
    expect((await connect(connectBody(m), { ip })).statusCode).toBe(202);
  });
});

let sharedMerchant: Merchant | undefined;
async function cachedMerchant(): Promise<Merchant> {
  sharedMerchant ??= await createApprovedMerchant(ctx.app);
  return sharedMerchant;
}
