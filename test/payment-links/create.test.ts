import { describe, expect, it } from 'vitest';
import { MerchantIdKey, PaymentStatusKey } from '../../src/workflows/search-attributes';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';

// POST /api/v1/payment-links and the link's page as a customer first sees it.
const ctx = useTestApp();

const create = (apiKey: string, payload: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/v1/payment-links',
    headers: { authorization: `Bearer ${apiKey}`, ...headers },
    payload: payload as object,
  });

const linkCount = async () => (await ctx.db.sql`select count(*)::int as n from payment_links`)[0]!.n as number;

describe('POST /api/v1/payment-links', () => {
  it('creates a link with every field, and its workflow', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await create(m.apiKey, { amount: 49.9, currency: 'eur', description: 'Invoice 2026-114', merchantOrderId: 'INV-114' });
    expect(res.statusCode).toBe(201);
    const { ok, paymentLink, checkoutUrl } = res.json();
    expect(ok).toBe(true);
    expect(paymentLink).toEqual({
      id: expect.stringMatching(/^plink_[0-9A-Za-z]{24}$/),
      url: `${ctx.config.http.publicBaseUrl}/link/${paymentLink.id}`,
      status: 'active',
      amount: '49.90',
      currency: 'EUR',
      destinationAsset: 'USDC',
      network: 'polygon',
      description: 'Invoice 2026-114',
      merchantOrderId: 'INV-114',
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(checkoutUrl).toBe(paymentLink.url);
    // Default lifetime: 10,080 minutes (7 days).
    const lifetime = new Date(paymentLink.expiresAt).getTime() - new Date(paymentLink.createdAt).getTime();
    expect(Math.abs(lifetime - 10_080 * 60_000)).toBeLessThan(5000);

    const [row] = await ctx.db
      .sql`select merchant_id, amount_minor, status, paid_session_id from payment_links where id = ${paymentLink.id}`;
    expect(row).toEqual({ merchant_id: m.id, amount_minor: '4990', status: 'active', paid_session_id: null });
    const workflow = await ctx.temporal.workflow.getHandle(paymentLink.id).describe();
    expect(workflow.type).toBe('paymentLink');
    expect(workflow.status.name).toBe('RUNNING');
    expect(workflow.taskQueue).toBe(ctx.config.temporal.taskQueue);
    expect(workflow.typedSearchAttributes.get(MerchantIdKey)).toBe(m.id);
    expect(workflow.typedSearchAttributes.get(PaymentStatusKey)).toBe('active');
  });

  it('takes an explicit lifetime, asset and network, and leaves optional fields null', async () => {
    const m = await createApprovedMerchant(ctx.app, {
      wallets: [{ asset: 'USDT', network: 'tron', address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' }],
    });
    const res = await create(m.apiKey, { amount: 1500, currency: 'JPY', destinationAsset: 'usdt', network: 'TRON', expiresInMinutes: 5 });
    expect(res.statusCode).toBe(201);
    const link = res.json().paymentLink;
    expect(link).toMatchObject({
      amount: '1500',
      currency: 'JPY',
      destinationAsset: 'USDT',
      network: 'tron',
      description: null,
      merchantOrderId: null,
    });
    const lifetime = new Date(link.expiresAt).getTime() - new Date(link.createdAt).getTime();
    expect(Math.abs(lifetime - 5 * 60_000)).toBeLessThan(5000);
  });

  it.each([
    [{ currency: 'USD' }, 'amount'],
    [{ amount: 10 }, 'currency'],
    [{ amount: 0, currency: 'USD' }, 'amount'],
    [{ amount: 19.999, currency: 'USD' }, 'amount'],
    [{ amount: 10.5, currency: 'JPY' }, 'amount'],
    [{ amount: 1_000_001, currency: 'USD' }, 'amount'],
    [{ amount: '10', currency: 'USD' }, 'amount'],
    [{ amount: 10, currency: 'XYZ' }, 'currency'],
    [{ amount: 10, currency: 'USD', expiresInMinutes: 4 }, 'expiresInMinutes'],
    [{ amount: 10, currency: 'USD', expiresInMinutes: 43_201 }, 'expiresInMinutes'],
    [{ amount: 10, currency: 'USD', expiresInMinutes: 5.5 }, 'expiresInMinutes'],
    [{ amount: 10, currency: 'USD', expiresInMinutes: '60' }, 'expiresInMinutes'],
    [{ amount: 10, currency: 'USD', description: 'd'.repeat(501) }, 'description'],
    [{ amount: 10, currency: 'USD', merchantOrderId: 'o'.repeat(201) }, 'merchantOrderId'],
    [{ amount: 10, currency: 'USD', destinationAsset: 'USDT', network: 'base' }, 'network'],
    [{ amount: 10, currency: 'USD', destinationAsset: 'USDT', network: 'tron' }, 'network'],
    [{ amount: 10, currency: 'USD', countryCode: 'US' }, 'countryCode'],
  ])('refuses %o with 422 naming %s, creating nothing', async (payload, path) => {
    const m = await createApprovedMerchant(ctx.app);
    const before = await linkCount();
    const res = await create(m.apiKey, payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ok: false, error: 'ValidationError' });
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await linkCount()).toBe(before);
  });

  it('accepts the bounds of expiresInMinutes and of description', async () => {
    const m = await createApprovedMerchant(ctx.app);
    expect(
      (await create(m.apiKey, { amount: 10, currency: 'USD', expiresInMinutes: 43_200, description: 'd'.repeat(500) })).statusCode,
    ).toBe(201);
  });

  it('refuses new links with 403 PaymentsDisabled while the kill switch is on', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: false } });
    try {
      const before = await linkCount();
      const res = await create(m.apiKey, { amount: 10, currency: 'USD' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ ok: false, error: 'PaymentsDisabled' });
      expect(await linkCount()).toBe(before);
    } finally {
      await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: true } });
    }
  });

  it('needs a key with payment_links:create', async () => {
    const m = await createApprovedMerchant(ctx.app);
    expect(
      (await ctx.app.inject({ method: 'POST', url: '/api/v1/payment-links', payload: { amount: 10, currency: 'USD' } })).statusCode,
    ).toBe(401);
    const key = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['checkout_sessions:create'] },
    });
    const res = await create(key.json().apiKey, { amount: 10, currency: 'USD' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('InsufficientScope');
  });

  it('replays the first response for a repeated Idempotency-Key: one link, one workflow', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const body = { amount: 12, currency: 'USD', description: 'once' };
    const first = await create(m.apiKey, body, { 'idempotency-key': 'link-1' });
    const second = await create(m.apiKey, body, { 'idempotency-key': 'link-1' });
    expect(first.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await ctx.db.sql`select id from payment_links where merchant_id = ${m.id}`).toHaveLength(1);
    const conflict = await create(m.apiKey, { ...body, amount: 13 }, { 'idempotency-key': 'link-1' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error).toBe('IdempotencyConflict');
  });
});

describe('GET /link/:id', () => {
  it('shows amount, merchant and description, a country choice and Pay, with the hosted pages’ security headers', async () => {
    const m = await createApprovedMerchant(ctx.app, { name: 'Studio <Ink>' });
    const link = (await create(m.apiKey, { amount: 80, currency: 'GBP', description: 'Logo design <b>draft</b> & "final"' })).json()
      .paymentLink;
    const res = await ctx.app.inject({ method: 'GET', url: `/link/${link.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('80.00');
    expect(res.body).toContain('GBP');
    expect(res.body).toContain('Studio &lt;Ink&gt;');
    expect(res.body).toContain('Logo design &lt;b&gt;draft&lt;/b&gt; &amp; &quot;final&quot;');
    expect(res.body).not.toContain('<b>draft</b>');
    expect(res.body).toContain(`action="/link/${link.id}/pay"`);
    expect(res.body).toContain('<option value="GB">United Kingdom</option>');
    // Countries no provider serves are not offered.
    expect(res.body).not.toContain('value="KP"');
    expect(res.body).toContain('id="pay-button"');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    // Its one script (live.js) follows the link's status stream, same-origin only.
    expect(csp).toContain("script-src 'self'; connect-src 'self'");
    expect(res.body).toContain(`data-events="/link/${link.id}/events"`);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 404 for an unknown or malformed link id', async () => {
    for (const id of ['plink_000000000000000000000000', 'plink_x', '1', 'SV_abc']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/link/${id}` });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toContain('text/html');
    }
  });
});
