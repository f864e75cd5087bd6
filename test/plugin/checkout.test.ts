import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/verify';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { markSiteVerified } from '../support/plugin-sites';
import { paymentAtRest } from '../support/at-rest';
import { eventually } from '../support/http';
import { startReceiver } from '../support/receiver';
import { depositAddressOf, payDirect } from '../support/proof';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// POST /api/v1/checkout-sessions: the plugin's create, through the one checkout
// implementation, with deliveries to the connected site's endpoint signed with its secret.
// The sandbox runs as the price source of the direct rail, through which a session is paid on chain.
const ctx = useTestApp(
  {
    WEBHOOK_RETRY_BASE_SECONDS: '0.5',
    WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '1',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RETRY_WINDOW_HOURS: '1',
  },
  { sandbox: true, worker: true },
);
const receivers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

type Merchant = Awaited<ReturnType<typeof createApprovedMerchant>>;

async function connectSite(m: Merchant, siteUrl: string, callbackUrl = `${siteUrl}/?wc-api=svc_webhook`) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/plugin/connect',
    payload: {
      merchant_id: m.id,
      api_key: m.apiKey,
      security_code: m.securityCode,
      platform: 'woocommerce',
      site_url: siteUrl,
      callback_url: callbackUrl,
      plugin_version: '1.2.0',
    },
  });
  expect(res.statusCode).toBe(202);
  const site = res.json<{ site_id: string; webhook_secret: string }>();
  // Checkouts are for verified sites; the proof itself is tested in site-proof.test.ts.
  await markSiteVerified(ctx.db, site.site_id);
  return site;
}

function pluginCheckout(apiKey: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout-sessions',
    headers: { authorization: `Bearer ${apiKey}`, ...headers },
    payload: body,
  });
}

const order = (storeUrl: string, overrides: Record<string, unknown> = {}) => ({
  order_id: '1001',
  amount: 25,
  currency: 'USD',
  country_code: 'US',
  store_url: storeUrl,
  ...overrides,
});

const sessionCount = async () => (await ctx.db.sql`select count(*)::int as n from checkout_sessions`)[0]!.n as number;

describe('plugin checkout end to end', () => {
  it('opens a normal checkout session and delivers signed webhooks to the site, verifiable with its webhook_secret', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const m = await createApprovedMerchant(ctx.app, { name: 'Woo Shop' });
    // A merchant endpoint of its own: it gets the events too, signed with its own secret.
    const endpoint = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${r.url}/merchant-endpoint` },
    });
    expect(endpoint.statusCode).toBe(201);
    // The same 127.0.0.1 host for site and callback: callback_url must be related to site_url.
    const site = await connectSite(m, r.url, `${r.url}/wc-api/svc`);

    const created = await pluginCheckout(
      m.apiKey,
      order(`${r.url}/checkout/`, {
        order_key: 'wc_order_K3y',
        currency: 'usd',
        country_code: 'us',
        customer_email: 'buyer@shop.example',
        crypto_asset: 'usdc_Polygon',
        success_url: `${r.url}/checkout/order-received/1001/`,
        cancel_url: `${r.url}/cart/`,
      }),
    );
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toEqual({
      success: true,
      session_id: expect.stringMatching(/^SV_[0-9A-Za-z]{24}$/),
      checkout_url: `${ctx.config.http.publicBaseUrl}/pay/${body.session_id}`,
      expires_at: expect.any(String),
    });
    expect(new Date(body.expires_at).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const [row] = await ctx.db
      .sql`select source, site_id, order_key, order_id, currency, country_code, destination_asset, network, success_url, cancel_url, customer_email from checkout_sessions where id = ${body.session_id}`;
    expect(row).toEqual({
      source: 'plugin',
      site_id: site.site_id,
      order_key: 'wc_order_K3y',
      order_id: '1001',
      currency: 'USD',
      country_code: 'US',
      destination_asset: 'USDC',
      network: 'polygon',
      success_url: `${r.url}/checkout/order-received/1001/`,
      cancel_url: `${r.url}/cart/`,
      customer_email: 'buyer@shop.example',
    });
    expect((await ctx.temporal.workflow.getHandle(body.session_id).describe()).type).toBe('checkoutSession');

    const session = {
      id: body.session_id,
      amount: '25.00',
      currency: 'USD',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: await depositAddressOf(ctx, body.session_id),
    };
    const res = await postCallback(ctx.app, sandboxEvent(session, 'payment.processing'), {
      secret: ctx.config.providers.sandbox.callbackSecret,
    });
    expect(res.statusCode).toBe(200);
    await payDirect(ctx, body.session_id);
    const toSite = () => r.received.filter((d) => d.path === '/wc-api/svc');
    await eventually(
      async () => toSite().length,
      (n) => n >= 2,
      15_000,
      'two deliveries to the site',
    );

    const completed = toSite().find((d) => d.body.event === 'payment.completed')!;
    expect(verifyWebhook(completed.rawBody, completed.headers['svc-signature'], site.webhook_secret)).toEqual({ ok: true });
    expect(verifyWebhook(completed.rawBody, completed.headers['svc-signature'], endpoint.json().secret).ok).toBe(false);
    expect(completed.body).toMatchObject({
      event: 'payment.completed',
      merchantId: m.id,
      sessionId: body.session_id,
      status: 'completed',
      amount: '25.00',
      currency: 'USD',
      orderId: '1001',
      wooCommerce: { orderStatus: 'processing' },
    });
    expect(completed.headers['svc-event-type']).toBe('payment.completed');

    const toEndpoint = await eventually(
      async () => r.received.filter((d) => d.path === '/merchant-endpoint'),
      (ds) => ds.length >= 2,
      15_000,
    );
    for (const d of toEndpoint) expect(verifyWebhook(d.rawBody, d.headers['svc-signature'], endpoint.json().secret)).toEqual({ ok: true });

    // The hosted page sends the customer back to the shop's success_url.
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${body.session_id}` });
    expect(page.body).toContain('Payment received');
    expect(page.body).toContain(`href="${r.url}/checkout/order-received/1001/"`);
  });

  it('signs a per-order callback_url with the site secret too, and sends the site nothing about other sessions', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const m = await createApprovedMerchant(ctx.app);
    const site = await connectSite(m, r.url, `${r.url}/site-hook`);
    const plugin = await pluginCheckout(m.apiKey, order(r.url, { order_id: '2002', callback_url: `${r.url}/order-hook?order=2002` }));
    expect(plugin.statusCode).toBe(201);
    const v1 = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US', orderId: 'api-1' },
    });
    expect(v1.statusCode).toBe(201);
    // One transition each, so one event each: the merchant's expire.
    const sessions: string[] = [plugin.json().session_id, v1.json().checkoutSession.id];
    for (const id of sessions) {
      const expired = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/checkout/sessions/${id}/expire`,
        headers: { authorization: `Bearer ${m.apiKey}` },
      });
      expect(expired.statusCode).toBe(200);
    }
    await eventually(
      async () => r.received.length,
      (n) => n >= 2,
      15_000,
      'two deliveries',
    );
    for (const id of sessions) await paymentAtRest(ctx, id);
    expect(r.received.map((d) => d.path).sort()).toEqual(['/order-hook?order=2002', '/site-hook']);
    for (const d of r.received) {
      expect(d.body.sessionId).toBe(plugin.json().session_id);
      expect(verifyWebhook(d.rawBody, d.headers['svc-signature'], site.webhook_secret)).toEqual({ ok: true });
    }
  });
});

describe('plugin checkout refusals', () => {
  it('refuses a store_url that is not a connected site of the merchant with 422, creating nothing', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const other = await createApprovedMerchant(ctx.app);
    await connectSite(other, 'https://others-shop.example');
    await connectSite(m, 'https://mine.example');
    const before = await sessionCount();
    for (const storeUrl of [
      'https://never-connected.example',
      'https://others-shop.example',
      'http://mine.example',
      'https://www.mine.example',
    ]) {
      const res = await pluginCheckout(m.apiKey, order(storeUrl));
      expect(res.statusCode, storeUrl).toBe(422);
      expect(res.json()).toMatchObject({ ok: false, error: 'ValidationError', details: [{ path: 'store_url' }] });
    }
    expect(await sessionCount()).toBe(before);
    expect((await pluginCheckout(m.apiKey, order('https://MINE.example/checkout'))).statusCode).toBe(201);
  });

  it.each([
    [{ order_id: undefined }, 'order_id'],
    [{ amount: undefined }, 'amount'],
    [{ currency: undefined }, 'currency'],
    [{ country_code: undefined }, 'country_code'],
    [{ store_url: undefined }, 'store_url'],
    [{ amount: 19.999 }, 'amount'],
    [{ amount: '25.00' }, 'amount'],
    [{ currency: 'XYZ' }, 'currency'],
    [{ country_code: 'KP' }, 'country_code'],
    [{ country_code: 'USA' }, 'country_code'],
    [{ crypto_asset: 'USDC' }, 'crypto_asset'],
    [{ crypto_asset: 'USDT_BASE' }, 'crypto_asset'],
    [{ crypto_asset: 'USDT_TRON' }, 'crypto_asset'],
    [{ customer_email: 'nope' }, 'customer_email'],
    [{ success_url: 'javascript:alert(1)' }, 'success_url'],
    [{ callback_url: 'https://unrelated.example/hook' }, 'callback_url'],
    [{ orderId: 'camel' }, 'orderId'],
  ])('refuses %o with 422 naming %s (snake_case, v1 envelope)', async (overrides, path) => {
    const m = await createApprovedMerchant(ctx.app);
    await connectSite(m, `https://shop-${m.id.toLowerCase()}.example`);
    const body = Object.fromEntries(
      Object.entries(order(`https://shop-${m.id.toLowerCase()}.example`, overrides)).filter(([, v]) => v !== undefined),
    );
    const before = await sessionCount();
    const res = await pluginCheckout(m.apiKey, body);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ok: false, error: 'ValidationError', requestId: expect.any(String) });
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await sessionCount()).toBe(before);
  });

  it('needs a key with checkout_sessions:create, and honours the kill switch', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await connectSite(m, 'https://scoped.example');
    expect(
      (await ctx.app.inject({ method: 'POST', url: '/api/v1/checkout-sessions', payload: order('https://scoped.example') })).statusCode,
    ).toBe(401);
    const reader = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['plugin:connect'] },
    });
    const res = await pluginCheckout(reader.json().apiKey, order('https://scoped.example'));
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('InsufficientScope');

    await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: false } });
    try {
      const off = await pluginCheckout(m.apiKey, order('https://scoped.example'));
      expect(off.statusCode).toBe(403);
      expect(off.json().error).toBe('PaymentsDisabled');
    } finally {
      await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: true } });
    }
  });

  it('replays the first response for a repeated Idempotency-Key and creates one session', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await connectSite(m, 'https://idem-shop.example');
    const first = await pluginCheckout(m.apiKey, order('https://idem-shop.example', { order_id: '77' }), { 'idempotency-key': 'wc-77' });
    const second = await pluginCheckout(m.apiKey, order('https://idem-shop.example', { order_id: '77' }), { 'idempotency-key': 'wc-77' });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['idempotent-replayed']).toBe('true');
    const other = await pluginCheckout(m.apiKey, order('https://idem-shop.example', { order_id: '78' }), { 'idempotency-key': 'wc-77' });
    expect(other.statusCode).toBe(409);
    expect(await ctx.db.sql`select id from checkout_sessions where merchant_id = ${m.id}`).toHaveLength(1);
  });
});
