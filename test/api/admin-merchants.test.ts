import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, createMerchant, useTestApp } from '../support/harness';

const ctx = useTestApp();
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';

const admin = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: adminHeaders, ...(payload === undefined ? {} : { payload: payload as object }) });

describe('admin API: merchants', () => {
  it('creates a merchant pending review, with a security code shown once', async () => {
    const res = await admin('POST', '/admin/v1/merchants', {
      name: 'Corner Shop',
      commissionBps: 150,
      wallets: [{ asset: 'usdt', network: 'TRON', address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' }],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.ok).toBe(true);
    expect(body.merchant).toMatchObject({ name: 'Corner Shop', status: 'pending_review', commissionBps: 150, apiKeys: [] });
    expect(body.merchant.id).toMatch(/^MER_[0-9A-Za-z]{16}$/);
    expect(body.merchant.wallets).toEqual([
      expect.objectContaining({ asset: 'USDT', network: 'tron', address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' }),
    ]);
    expect(body.securityCode).toMatch(/^[A-HJ-NP-Z2-9]{6}(-[A-HJ-NP-Z2-9]{6}){3}$/);

    const got = await admin('GET', `/admin/v1/merchants/${body.merchant.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().merchant).toEqual(body.merchant);
    expect(got.body).not.toContain(body.securityCode);
  });

  it('defaults the commission to 100 bps', async () => {
    const res = await admin('POST', '/admin/v1/merchants', { name: 'Default' });
    expect(res.json().merchant.commissionBps).toBe(100);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', commissionBps: -1 }, 'commissionBps'],
    [{ name: 'x', commissionBps: 10001 }, 'commissionBps'],
    [{ name: 'x', commissionBps: 1.5 }, 'commissionBps'],
    [{ name: 'x', extra: true }, 'extra'],
    [{ name: 'x', wallets: [{ asset: 'USDT', network: 'solana', address: 'x' }] }, 'wallets.0'],
    [{ name: 'x', wallets: [{ asset: 'USDC', network: 'polygon', address: 'not-an-address' }] }, 'wallets.0.address'],
    [{ name: 'x', wallets: [{ asset: 'DAI', network: 'polygon', address: EVM }] }, 'wallets.0.asset'],
  ])('refuses %o with 422 naming %s, and creates nothing', async (payload, path) => {
    const before = await ctx.db.sql`select count(*)::int as n from merchants`;
    const res = await admin('POST', '/admin/v1/merchants', payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ok: false, error: 'ValidationError' });
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    const after = await ctx.db.sql`select count(*)::int as n from merchants`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('approves once, issuing a live key with all four scopes; approving again is a conflict', async () => {
    const m = await createMerchant(ctx.app);
    const res = await admin('POST', `/admin/v1/merchants/${m.id}/approve`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.apiKey).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(body.merchant.status).toBe('approved');
    expect(body.merchant.approvedAt).not.toBeNull();
    expect(body.merchant.apiKeys).toEqual([
      expect.objectContaining({
        kind: 'live',
        prefix: body.apiKey.slice(0, 12),
        last4: body.apiKey.slice(-4),
        scopes: ['checkout_sessions:create', 'payment_links:create', 'transactions:read', 'plugin:connect'],
        expiresAt: null,
      }),
    ]);
    const again = await admin('POST', `/admin/v1/merchants/${m.id}/approve`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('Conflict');
    const got = await admin('GET', `/admin/v1/merchants/${m.id}`);
    expect(got.body).not.toContain(body.apiKey);
    expect(got.json().merchant.apiKeys).toHaveLength(1);
  });

  it('suspends a merchant', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await admin('POST', `/admin/v1/merchants/${m.id}/suspend`);
    expect(res.statusCode).toBe(200);
    expect(res.json().merchant.status).toBe('suspended');
  });

  it('issues restricted keys only to approved merchants and only with known scopes', async () => {
    const pending = await createMerchant(ctx.app);
    const refused = await admin('POST', `/admin/v1/merchants/${pending.id}/api-keys`, { scopes: ['transactions:read'] });
    expect(refused.statusCode).toBe(409);

    const m = await createApprovedMerchant(ctx.app);
    const bad = await admin('POST', `/admin/v1/merchants/${m.id}/api-keys`, { scopes: ['everything'] });
    expect(bad.statusCode).toBe(422);
    const empty = await admin('POST', `/admin/v1/merchants/${m.id}/api-keys`, { scopes: [] });
    expect(empty.statusCode).toBe(422);

    const ok = await admin('POST', `/admin/v1/merchants/${m.id}/api-keys`, { scopes: ['transactions:read', 'transactions:read'] });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().key).toMatchObject({ kind: 'restricted', scopes: ['transactions:read'] });
    expect(ok.json().apiKey).toMatch(/^svc_live_/);
  });

  it('rotates the live key, leaving the previous one a 24 h expiry', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await admin('POST', `/admin/v1/merchants/${m.id}/api-keys/rotate`);
    expect(res.statusCode).toBe(200);
    const { apiKey, previousKeyExpiresAt } = res.json();
    expect(apiKey).not.toBe(m.apiKey);
    const keys = (await admin('GET', `/admin/v1/merchants/${m.id}`)).json().merchant.apiKeys;
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatchObject({ last4: m.apiKey.slice(-4), expiresAt: previousKeyExpiresAt });
    expect(keys[1]).toMatchObject({ last4: apiKey.slice(-4), expiresAt: null });

    const pending = await createMerchant(ctx.app);
    expect((await admin('POST', `/admin/v1/merchants/${pending.id}/api-keys/rotate`)).statusCode).toBe(409);
  });

  it('revokes one key at once, leaving the others working', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const restricted = await admin('POST', `/admin/v1/merchants/${m.id}/api-keys`, { scopes: ['transactions:read'] });
    const keyId = restricted.json().key.id as string;
    const res = await admin('POST', `/admin/v1/merchants/${m.id}/api-keys/${keyId}/revoke`);
    expect(res.statusCode).toBe(200);
    expect(res.json().key.revokedAt).not.toBeNull();
    const read = (key: string) =>
      ctx.app.inject({
        method: 'GET',
        url: '/api/v1/transactions/SV_doesnotexist000000000000',
        headers: { authorization: `Bearer ${key}` },
      });
    expect((await read(restricted.json().apiKey)).statusCode).toBe(401);
    expect((await read(m.apiKey)).statusCode).toBe(404);
    const other = await createApprovedMerchant(ctx.app);
    expect((await admin('POST', `/admin/v1/merchants/${other.id}/api-keys/${keyId}/revoke`)).statusCode).toBe(404);
  });

  it('lists merchants, newest first', async () => {
    const a = await createMerchant(ctx.app, { name: 'Older' });
    const b = await createMerchant(ctx.app, { name: 'Newer' });
    const res = await admin('GET', '/admin/v1/merchants?limit=2');
    expect(res.statusCode).toBe(200);
    expect(res.json().merchants.map((m: { id: string }) => m.id)).toEqual([b.id, a.id]);
  });

  it('rotates the security code: the stored hash changes at once', async () => {
    const m = await createMerchant(ctx.app);
    const [before] = await ctx.db.sql`select security_code_hash from merchants where id = ${m.id}`;
    const res = await admin('POST', `/admin/v1/merchants/${m.id}/security-code/rotate`);
    expect(res.statusCode).toBe(200);
    const { securityCode } = res.json();
    expect(securityCode).not.toBe(m.securityCode);
    const [after] = await ctx.db.sql`select security_code_hash from merchants where id = ${m.id}`;
    expect(after!.security_code_hash).not.toBe(before!.security_code_hash);
  });

  it('sets and replaces the wallet of one (asset, network) pair', async () => {
    const m = await createMerchant(ctx.app, { wallets: [] });
    const first = await admin('PUT', `/admin/v1/merchants/${m.id}/wallets`, { asset: 'USDC', network: 'base', address: EVM });
    expect(first.statusCode).toBe(200);
    const other = '0x000000000000000000000000000000000000dEaD';
    const second = await admin('PUT', `/admin/v1/merchants/${m.id}/wallets`, { asset: 'usdc', network: 'Base', address: other });
    expect(second.json().merchant.wallets).toEqual([expect.objectContaining({ asset: 'USDC', network: 'base', address: other })]);
    const refused = await admin('PUT', `/admin/v1/merchants/${m.id}/wallets`, { asset: 'USDT', network: 'base', address: EVM });
    expect(refused.statusCode).toBe(422);
  });

  it.each(['MER_doesnotexist0000', 'not-a-merchant-id', '1'])('answers 404 for an unknown merchant %s', async (id) => {
    for (const [method, url] of [
      ['GET', `/admin/v1/merchants/${id}`],
      ['POST', `/admin/v1/merchants/${id}/approve`],
      ['POST', `/admin/v1/merchants/${id}/suspend`],
      ['POST', `/admin/v1/merchants/${id}/security-code/rotate`],
    ] as const) {
      const res = await admin(method, url);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('NotFound');
    }
  });

  it.each([undefined, 'Bearer wrong-token-wrong-token-wrong', 'test-admin-token-0123456789abcdef'])(
    'answers 401 without the admin bearer token (%s)',
    async (authorization) => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/admin/v1/merchants',
        headers: authorization ? { authorization } : {},
        payload: { name: 'x' },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('Unauthorized');
    },
  );
});

describe('admin API: payment kill switch', () => {
  it('is on by default, and an operator turns it off and on', async () => {
    const initial = await admin('GET', '/admin/v1/settings/payments');
    expect(initial.json()).toMatchObject({ ok: true, enabled: true });
    const off = await admin('PUT', '/admin/v1/settings/payments', { enabled: false });
    expect(off.json()).toMatchObject({ ok: true, enabled: false });
    expect((await admin('GET', '/admin/v1/settings/payments')).json().enabled).toBe(false);
    await admin('PUT', '/admin/v1/settings/payments', { enabled: true });
    expect((await admin('GET', '/admin/v1/settings/payments')).json().enabled).toBe(true);
    expect((await admin('PUT', '/admin/v1/settings/payments', { enabled: 'no' })).statusCode).toBe(422);
  });
});

describe('settlement wallets are checked with their network’s checksum', () => {
  it('refuses a mistyped EVM checksum and stores a lowercase one checksummed', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: adminHeaders,
      payload: { name: 'Checksum Shop' },
    });
    const id = created.json().merchant.id as string;
    const put = (address: string) =>
      ctx.app.inject({
        method: 'PUT',
        url: `/admin/v1/merchants/${id}/wallets`,
        headers: adminHeaders,
        payload: { asset: 'USDC', network: 'polygon', address },
      });
    const mistyped = await put('0x52908400098527886E0F7030069857D2E4169ee7');
    expect(mistyped.statusCode).toBe(422);
    expect(mistyped.json().details).toEqual([{ path: 'wallets.0.address', message: expect.stringContaining('checksum') }]);
    expect((await put('0x52908400098527886e0f7030069857d2e4169ee7')).statusCode).toBe(200);
    const merchant = (await ctx.app.inject({ method: 'GET', url: `/admin/v1/merchants/${id}`, headers: adminHeaders })).json().merchant;
    expect(merchant.wallets).toEqual([expect.objectContaining({ address: '0x52908400098527886E0F7030069857D2E4169EE7' })]);
  });
});
