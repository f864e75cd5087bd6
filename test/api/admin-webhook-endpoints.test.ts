import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, createMerchant, useTestApp } from '../support/harness';

// Admin API: a merchant's webhook endpoints (register, list, disable/enable, delete), happy, error
// and security cases. The secret is shown once at registration and in no other answer.
const ctx = useTestApp();

type Method = 'GET' | 'POST' | 'DELETE';
const admin = (method: Method, url: string, payload?: object, headers: Record<string, string> = adminHeaders) =>
  ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

async function addEndpoint(merchantId: string, url: string, eventTypes?: string[]) {
  const res = await admin('POST', `/admin/v1/merchants/${merchantId}/webhook-endpoints`, { url, ...(eventTypes ? { eventTypes } : {}) });
  expect(res.statusCode).toBe(201);
  return res.json<{ endpoint: { id: string; url: string; enabled: boolean }; secret: string }>();
}

describe('admin API: webhook endpoints', () => {
  it('lists every endpoint of the merchant, oldest first, without secrets', async () => {
    const m = await createMerchant(ctx.app);
    const other = await createMerchant(ctx.app);
    const a = await addEndpoint(m.id, 'http://127.0.0.1:9/a');
    const b = await addEndpoint(m.id, 'http://127.0.0.1:9/b', ['payment.failed', 'payment.completed', 'payment.failed']);
    await addEndpoint(other.id, 'http://127.0.0.1:9/other');

    const res = await admin('GET', `/admin/v1/merchants/${m.id}/webhook-endpoints`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      endpoints: [
        { id: a.endpoint.id, url: 'http://127.0.0.1:9/a', enabled: true, eventTypes: null, createdAt: expect.any(String) },
        {
          id: b.endpoint.id,
          url: 'http://127.0.0.1:9/b',
          enabled: true,
          eventTypes: ['payment.failed', 'payment.completed'],
          createdAt: expect.any(String),
        },
      ],
    });
    expect(res.body).not.toContain(a.secret);
    expect(res.body).not.toContain('whsec_');
  });

  it('an empty list for a merchant without endpoints', async () => {
    const m = await createMerchant(ctx.app);
    expect((await admin('GET', `/admin/v1/merchants/${m.id}/webhook-endpoints`)).json()).toEqual({ ok: true, endpoints: [] });
  });

  it('disables and enables an endpoint; disabled ones stay listed', async () => {
    const m = await createMerchant(ctx.app);
    const { endpoint, secret } = await addEndpoint(m.id, 'http://127.0.0.1:9/toggle');
    const off = await admin('POST', `/admin/v1/merchants/${m.id}/webhook-endpoints/${endpoint.id}/disable`);
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ ok: true, endpoint: { id: endpoint.id, enabled: false } });
    expect(off.body).not.toContain(secret);
    const rows = await ctx.db.sql`select enabled from webhook_endpoints where id = ${endpoint.id}`;
    expect(rows[0]!.enabled).toBe(false);
    expect((await admin('GET', `/admin/v1/merchants/${m.id}/webhook-endpoints`)).json().endpoints).toEqual([
      expect.objectContaining({ id: endpoint.id, enabled: false }),
    ]);

    const on = await admin('POST', `/admin/v1/merchants/${m.id}/webhook-endpoints/${endpoint.id}/enable`);
    expect(on.json()).toMatchObject({ ok: true, endpoint: { id: endpoint.id, enabled: true } });
  });

  it('deletes an endpoint and its secret; a second delete is 404', async () => {
    const m = await createMerchant(ctx.app);
    const keep = await addEndpoint(m.id, 'http://127.0.0.1:9/keep');
    const gone = await addEndpoint(m.id, 'http://127.0.0.1:9/gone');
    const url = `/admin/v1/merchants/${m.id}/webhook-endpoints/${gone.endpoint.id}`;
    const res = await admin('DELETE', url);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, endpoint: { id: gone.endpoint.id, url: 'http://127.0.0.1:9/gone' } });
    expect(res.body).not.toContain(gone.secret);
    expect(await ctx.db.sql`select id from webhook_endpoints where id = ${gone.endpoint.id}`).toHaveLength(0);
    expect((await admin('GET', `/admin/v1/merchants/${m.id}/webhook-endpoints`)).json().endpoints.map((e: { id: string }) => e.id)).toEqual(
      [keep.endpoint.id],
    );
    expect((await admin('DELETE', url)).json()).toMatchObject({ ok: false, error: 'NotFound' });
  });
});

describe('admin API: webhook endpoints, errors', () => {
  it.each([
    ['GET', '/admin/v1/merchants/MER_0000000000000000/webhook-endpoints', 'Merchant not found.'],
    ['GET', '/admin/v1/merchants/not-a-merchant/webhook-endpoints', 'Merchant not found.'],
    ['POST', '/admin/v1/merchants/MER_0000000000000000/webhook-endpoints/we_0000000000000000/disable', 'Merchant not found.'],
    ['DELETE', '/admin/v1/merchants/MER_0000000000000000/webhook-endpoints/we_0000000000000000', 'Merchant not found.'],
  ] as const)('%s %s: 404', async (method, url, message) => {
    const res = await admin(method, url);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ ok: false, error: 'NotFound', message });
  });

  it('an unknown, malformed or other merchant’s endpoint id is 404 and changes nothing', async () => {
    const m = await createMerchant(ctx.app);
    const other = await createMerchant(ctx.app);
    const foreign = await addEndpoint(other.id, 'http://127.0.0.1:9/foreign');
    for (const id of ['we_0000000000000000', 'nope', foreign.endpoint.id]) {
      for (const [method, suffix] of [
        ['POST', '/disable'],
        ['POST', '/enable'],
        ['DELETE', ''],
      ] as const) {
        const res = await admin(method, `/admin/v1/merchants/${m.id}/webhook-endpoints/${id}${suffix}`);
        expect(res.statusCode, `${method} ${id}${suffix}`).toBe(404);
        expect(res.json()).toMatchObject({ error: 'NotFound', message: 'Webhook endpoint not found.' });
      }
    }
    const rows = await ctx.db.sql`select enabled from webhook_endpoints where id = ${foreign.endpoint.id}`;
    expect(rows).toEqual([{ enabled: true }]);
  });
});

describe('admin API: webhook endpoints, security', () => {
  it('refuses a missing or wrong admin token, and a merchant key, with 401', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const { endpoint } = await addEndpoint(m.id, 'http://127.0.0.1:9/secure');
    const base = `/admin/v1/merchants/${m.id}/webhook-endpoints`;
    const calls: [Method, string][] = [
      ['GET', base],
      ['POST', `${base}/${endpoint.id}/disable`],
      ['POST', `${base}/${endpoint.id}/enable`],
      ['DELETE', `${base}/${endpoint.id}`],
    ];
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong-token-0123456789abcdef' },
      { authorization: `Bearer ${m.apiKey}` },
    ]) {
      for (const [method, url] of calls) {
        const res = await admin(method, url, undefined, headers);
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        expect(res.json()).toMatchObject({ ok: false, error: 'Unauthorized' });
      }
    }
    expect(await ctx.db.sql`select enabled from webhook_endpoints where id = ${endpoint.id}`).toEqual([{ enabled: true }]);
  });
});
