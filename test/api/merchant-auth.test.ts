import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiKeys } from '../../src/db/schema';
import { sha256Hex } from '../../src/domain/credentials';
import { adminHeaders, createApprovedMerchant, createMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';

// A probe route behind the real auth plugin: the merchant routes of later issues use the same
// preHandler, so every outcome is proven here once.
// Keys are cached for 1 s here (5 s by default), so a change made behind the API's back shows quickly.
const ctx = useTestApp(
  { API_KEY_CACHE_SECONDS: '1' },
  {
    extend: (app) => {
      app.get('/api/v1/_probe', { preHandler: app.requireScope('transactions:read') }, async (request) => ({
        ok: true,
        merchantId: request.merchant?.id,
      }));
    },
  },
);

const probe = (authorization?: string) =>
  ctx.app.inject({ method: 'GET', url: '/api/v1/_probe', headers: authorization ? { authorization } : {} });

function expectError(res: Awaited<ReturnType<typeof probe>>, status: number, error: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ ok: false, error });
  expect(body.requestId).toBe(res.headers['x-request-id']);
  return body as { message: string };
}

describe('bearer-key authentication', () => {
  it('accepts an approved merchant’s live key', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await probe(`Bearer ${m.apiKey}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, merchantId: m.id });
  });

  it.each([
    ['no header', undefined],
    ['a non-bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['two tokens', 'Bearer a b'],
    ['an unknown live key', `Bearer svc_live_${'A'.repeat(32)}`],
    ['a live key of the wrong length', `Bearer svc_live_${'A'.repeat(12)}`],
  ])('refuses %s with 401 Unauthorized', async (_name, header) => {
    expectError(await probe(header), 401, 'Unauthorized');
  });

  it.each([
    ['a test key', `svc_test_${'a'.repeat(32)}`],
    ['a legacy test secret key', `svc_test_sk_${'a'.repeat(32)}`],
    ['a legacy live secret key', `svc_live_sk_${'a'.repeat(24)}`],
    ['a publishable key', `pk_live_${'a'.repeat(32)}`],
  ])('refuses %s as a retired format', async (_name, key) => {
    const body = expectError(await probe(`Bearer ${key}`), 401, 'Unauthorized');
    expect(body.message).toMatch(/retired/);
  });

  it('refuses a key whose merchant is suspended, with 403 AccountNotApproved, and accepts it again after re-approval', async () => {
    const m = await createApprovedMerchant(ctx.app);
    // Used (and so cached) first: the suspension, an admin write, holds at once all the same.
    expect((await probe(`Bearer ${m.apiKey}`)).statusCode).toBe(200);
    await ctx.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/suspend`, headers: adminHeaders });
    expectError(await probe(`Bearer ${m.apiKey}`), 403, 'AccountNotApproved');
    const again = await ctx.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/approve`, headers: adminHeaders });
    expect(again.json().apiKey).toBeNull();
    expect((await probe(`Bearer ${m.apiKey}`)).statusCode).toBe(200);
  });

  it('refuses a restricted key without the route’s scope with 403 InsufficientScope', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['checkout_sessions:create'] },
    });
    expect(res.statusCode).toBe(201);
    const restricted = res.json().apiKey as string;
    const body = expectError(await probe(`Bearer ${restricted}`), 403, 'InsufficientScope');
    expect(body.message).toContain('transactions:read');

    const reader = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['transactions:read'] },
    });
    expect((await probe(`Bearer ${reader.json().apiKey}`)).statusCode).toBe(200);
  });

  it('keeps the previous key working for 24 hours after a rotation, then refuses it', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const rotated = await ctx.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/api-keys/rotate`, headers: adminHeaders });
    expect(rotated.statusCode).toBe(200);
    const { apiKey, previousKeyExpiresAt } = rotated.json();
    const graceMs = new Date(previousKeyExpiresAt).getTime() - Date.now();
    expect(graceMs).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(graceMs).toBeLessThanOrEqual(24 * 3600_000);

    expect((await probe(`Bearer ${m.apiKey}`)).statusCode).toBe(200);
    expect((await probe(`Bearer ${apiKey}`)).statusCode).toBe(200);

    // The grace period ends: move the old key's expiry into the past, as 24 hours would (in SQL,
    // so this process learns of it when its cached copy of the key lapses, within 1 s here).
    await ctx.db.db
      .update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiKeys.keyHash, sha256Hex(m.apiKey)));
    await eventually(
      () => probe(`Bearer ${m.apiKey}`),
      (res) => res.statusCode === 401,
      3_000,
    );
    expectError(await probe(`Bearer ${m.apiKey}`), 401, 'Unauthorized');
    expect((await probe(`Bearer ${apiKey}`)).statusCode).toBe(200);
  });

  it('refuses a revoked key', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await ctx.db.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(apiKeys.keyHash, sha256Hex(m.apiKey)));
    expectError(await probe(`Bearer ${m.apiKey}`), 401, 'Unauthorized');
  });

  it('refuses a key revoked through the admin API at once, though this process had just authenticated it', async () => {
    const m = await createApprovedMerchant(ctx.app);
    expect((await probe(`Bearer ${m.apiKey}`)).statusCode).toBe(200);
    const [key] = await ctx.db.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, sha256Hex(m.apiKey)));
    const revoked = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys/${key!.id}/revoke`,
      headers: adminHeaders,
    });
    expect(revoked.statusCode).toBe(200);
    expectError(await probe(`Bearer ${m.apiKey}`), 401, 'Unauthorized');
  });

  it('trusts a key it authenticated for API_KEY_CACHE_SECONDS: a revocation written elsewhere holds within that bound', async () => {
    const m = await createApprovedMerchant(ctx.app);
    expect((await probe(`Bearer ${m.apiKey}`)).statusCode).toBe(200);
    // As another API process's revocation would look from here: a row changed in Postgres.
    const revokedAt = Date.now();
    await ctx.db.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(apiKeys.keyHash, sha256Hex(m.apiKey)));
    expect((await probe(`Bearer ${m.apiKey}`)).statusCode).toBe(200);
    await eventually(
      () => probe(`Bearer ${m.apiKey}`),
      (res) => res.statusCode === 401,
      3_000,
    );
    expect(Date.now() - revokedAt).toBeLessThan(2_500);
  });

  it('never lets a merchant key reach the admin API', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/admin/v1/merchants/${m.id}`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('Unauthorized');
  });

  it('stores keys only as hashes', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const rows = await ctx.db.sql`select * from api_keys where merchant_id = ${m.id}`;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(m.apiKey);
    expect(rows[0]!.key_hash).toBe(sha256Hex(m.apiKey));
    const merchants = await ctx.db.sql`select * from merchants where id = ${m.id}`;
    expect(JSON.stringify(merchants)).not.toContain(m.securityCode);
  });

  it('issues no key before approval (the live key is locked until then)', async () => {
    const m = await createMerchant(ctx.app);
    const res = await ctx.app.inject({ method: 'GET', url: `/admin/v1/merchants/${m.id}`, headers: adminHeaders });
    expect(res.json().merchant.apiKeys).toEqual([]);
  });
});
