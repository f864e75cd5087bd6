import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { adminHeaders, createApprovedMerchant, createMerchant, testConfig, useTestApp } from '../support/harness';
import { randomBase62 } from '../../src/domain/ids';
import { connectBody, freshSite, markSiteVerified, pluginConnect } from '../support/plugin-sites';

// POST /api/v1/plugin/connect: every outcome of the handshake. Private URLs
// are allowed here (the harness default), so sites need no DNS; a strict app covers the URL policy.
// Rate limits: connect-limits.test.ts; proof of site control: site-proof.test.ts.
const ctx = useTestApp();

const connect = (body: unknown, options: { ip?: string; headers?: Record<string, string>; app?: FastifyInstance } = {}) =>
  pluginConnect(options.app ?? ctx.app, body, options);

const siteCount = async () => (await ctx.db.sql`select count(*)::int as n from sites`)[0]!.n as number;

describe('connecting a website', () => {
  it('connects on first use, with every field of a connection, and stores the secret encrypted', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const body = connectBody(m);
    const res = await connect(body);
    // A new website is pending until it proves control (test/plugin/site-proof.test.ts).
    expect(res.statusCode).toBe(202);
    const json = res.json();
    expect(json).toEqual({
      ok: true,
      status: 'pending_verification',
      merchant_id: m.id,
      site_id: expect.stringMatching(/^site_[0-9A-Za-z]{16}$/),
      environment: 'live',
      platform: 'woocommerce',
      site_url: body.site_url,
      callback_url: body.callback_url,
      webhook_secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/),
      message: expect.stringContaining(`${body.site_url}/.well-known/svc-checkout.txt`),
      verification: {
        method: 'well_known_file',
        url: `${body.site_url}/.well-known/svc-checkout.txt`,
        token: expect.stringMatching(/^svcsv_[0-9A-Za-z]{32}$/),
        last_check: null,
      },
    });
    const [row] = await ctx.db.sql`select * from sites where id = ${json.site_id}`;
    expect(row).toMatchObject({
      merchant_id: m.id,
      origin: body.site_url,
      platform: 'woocommerce',
      plugin_version: '1.1.0',
      status: 'pending_verification',
      verification_token: json.verification.token,
    });
    expect(row!.webhook_secret_encrypted).toMatch(/^v1\./);
    expect(row!.webhook_secret_encrypted).not.toContain(json.webhook_secret);
    // The site is its own delivery target, not one of the merchant's endpoints (those get every session).
    expect((await ctx.db.sql`select count(*)::int as n from webhook_endpoints where merchant_id = ${m.id}`)[0]!.n).toBe(0);
  });

  it('reconnects the same website (same origin) with the same site_id and webhook_secret, updating the rest', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const site = freshSite();
    const first = (await connect(connectBody(m, { site_url: site }))).json();
    const before = await siteCount();
    const again = await connect(
      connectBody(m, {
        site_url: `${site.toUpperCase().replace('HTTPS://', 'https://')}/shop/`,
        callback_url: `${site}/wp-json/svc/v2/webhook`,
        platform: 'Custom',
        plugin_version: '1.4.2',
      }),
    );
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({
      status: 'pending_verification',
      site_id: first.site_id,
      webhook_secret: first.webhook_secret,
      verification: { token: first.verification.token, last_check: expect.stringContaining('/.well-known/svc-checkout.txt') },
      platform: 'custom',
      callback_url: `${site}/wp-json/svc/v2/webhook`,
    });
    expect(await siteCount()).toBe(before);
    const [row] = await ctx.db.sql`select platform, plugin_version, callback_url from sites where id = ${first.site_id}`;
    expect(row).toEqual({ platform: 'custom', plugin_version: '1.4.2', callback_url: `${site}/wp-json/svc/v2/webhook` });
  });

  it('accepts a callback on another host of the same registrable domain', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await connect(
      connectBody(m, { site_url: 'https://www.related-shop.example', callback_url: 'https://api.related-shop.example/hooks' }),
    );
    expect(res.statusCode).toBe(202);
  });

  it("answers another merchant's connect of a connected website like any new website, and changes nothing of the owner's", async () => {
    const owner = await createApprovedMerchant(ctx.app);
    const other = await createApprovedMerchant(ctx.app);
    const site = freshSite();
    const first = (await connect(connectBody(owner, { site_url: site }))).json();
    await markSiteVerified(ctx.db, first.site_id);
    const res = await connect(connectBody(other, { site_url: `${site}/`, callback_url: `${site}/evil` }));
    // The same answer as for a website nobody holds: nothing says that the owner exists.
    const unheld = await connect(connectBody(other));
    expect(res.statusCode).toBe(202);
    expect(Object.keys(res.json()).sort()).toEqual(Object.keys(unheld.json()).sort());
    expect(res.json()).toMatchObject({ status: 'pending_verification', merchant_id: other.id });
    expect(res.json().site_id).not.toBe(first.site_id);
    expect(res.body).not.toContain(first.webhook_secret);
    expect(res.body).not.toContain(owner.id);
    expect(res.json().message).toBe(unheld.json().message.replaceAll(unheld.json().site_url, site));
    const [row] = await ctx.db.sql`select merchant_id, callback_url, status from sites where id = ${first.site_id}`;
    expect(row).toEqual({ merchant_id: owner.id, callback_url: `${site}/?wc-api=svc_webhook`, status: 'connected' });
  });
});

describe('credential failures', () => {
  it('answers every wrong credential with the same 401, no hint which part was wrong', async () => {
    const other = await createApprovedMerchant(ctx.app);
    const pending = await createMerchant(ctx.app);
    const cases: Record<string, Record<string, unknown>> = {
      'wrong security code': { security_code: other.securityCode },
      'mangled security code': { security_code: 'AAAAAA-BBBBBB-CCCCCC-DDDDDD' },
      "another merchant's key": { api_key: other.apiKey },
      'unknown live key': { api_key: `svc_live_${randomBase62(32)}` },
      'wrong merchant id': { merchant_id: other.id },
      'unknown merchant id': { merchant_id: `MER_${randomBase62(16)}` },
      'malformed merchant id': { merchant_id: 'merchant-1' },
      'test key': { api_key: `svc_test_${randomBase62(32)}` },
      'legacy live secret key': { api_key: `svc_live_sk_${randomBase62(32)}` },
      'legacy test secret key': { api_key: `svc_test_sk_${randomBase62(32)}` },
      'publishable key': { api_key: `pk_live_${randomBase62(24)}` },
      'empty key': { api_key: '' },
      'unapproved merchant (no live key yet)': { merchant_id: pending.id, security_code: pending.securityCode },
    };
    const bodies = new Set<string>();
    for (const [label, overrides] of Object.entries(cases)) {
      // A merchant per case: together the cases would pass the per-merchant limit.
      const m = await createApprovedMerchant(ctx.app);
      const res = await connect(connectBody(m, overrides));
      expect(res.statusCode, label).toBe(401);
      const { requestId, ...rest } = res.json();
      expect(requestId, label).toBe(res.headers['x-request-id']);
      bodies.add(JSON.stringify(rest));
    }
    expect([...bodies]).toEqual([
      JSON.stringify({ ok: false, error: 'Unauthorized', message: 'The merchant ID, API key or security code is not valid.' }),
    ]);
  });

  it('refuses a suspended merchant whose credentials are right, with 403 AccountNotApproved', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await ctx.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/suspend`, headers: adminHeaders });
    const res = await connect(connectBody(m));
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('AccountNotApproved');
  });

  it('refuses a rotated-out key after its grace period, and a revoked key', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const rotated = await ctx.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/api-keys/rotate`, headers: adminHeaders });
    // Within the 24 h grace the old key still works...
    expect((await connect(connectBody(m))).statusCode).toBe(202);
    await ctx.db.sql`update api_keys set expires_at = now() - interval '1 second' where merchant_id = ${m.id} and expires_at is not null`;
    expect((await connect(connectBody(m))).statusCode).toBe(401);
    expect((await connect(connectBody(m, { api_key: rotated.json().apiKey }))).statusCode).toBe(202);
  });

  it('needs the plugin:connect scope on a restricted key', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const issue = async (scopes: string[]) =>
      (
        await ctx.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/api-keys`, headers: adminHeaders, payload: { scopes } })
      ).json().apiKey as string;
    const reader = await issue(['transactions:read']);
    const res = await connect(connectBody(m, { api_key: reader }));
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('InsufficientScope');
    expect((await connect(connectBody(m, { api_key: await issue(['plugin:connect']) }))).statusCode).toBe(202);
  });

  it('takes credentials from the body only: an Authorization header is refused with 401', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const { merchant_id: _id, api_key: _key, security_code: _code, ...rest } = connectBody(m);
    const headerOnly = await connect(rest, { headers: { authorization: `Bearer ${m.apiKey}` } });
    expect(headerOnly.statusCode).toBe(401);
    expect(headerOnly.json()).toMatchObject({ ok: false, error: 'Unauthorized' });
    const both = await connect(connectBody(m), { headers: { authorization: `Bearer ${m.apiKey}` } });
    expect(both.statusCode).toBe(401);
    expect(await ctx.db.sql`select id from sites where merchant_id = ${m.id}`).toHaveLength(0);
  });
});

describe('request validation (422)', () => {
  it.each([
    [{ plugin_version: '1.0.9' }, 'plugin_version'],
    [{ plugin_version: '1.1.0-beta.1' }, 'plugin_version'],
    [{ plugin_version: '1.1' }, 'plugin_version'],
    [{ plugin_version: 'latest' }, 'plugin_version'],
    [{ platform: 'wix' }, 'platform'],
    [{ platform: '' }, 'platform'],
    [{ site_url: 'shop.example' }, 'site_url'],
    [{ site_url: 'ftp://shop.example' }, 'site_url'],
    [{ callback_url: 'https://unrelated.example/hooks' }, 'callback_url'],
    [{ callback_url: 'https://shop.github.io/hooks', site_url: 'https://other.github.io' }, 'callback_url'],
    [{ callback_url: 'not a url' }, 'callback_url'],
    [{ merchant_id: undefined }, 'merchant_id'],
    [{ surprise: 1 }, 'surprise'],
  ])('refuses %o naming %s, and connects nothing', async (overrides, path) => {
    const m = await createApprovedMerchant(ctx.app);
    const body = Object.fromEntries(Object.entries(connectBody(m, overrides)).filter(([, v]) => v !== undefined));
    const res = await connect(body);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ok: false, error: 'ValidationError' });
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await ctx.db.sql`select id from sites where merchant_id = ${m.id}`).toHaveLength(0);
  });

  it('accepts later plugin versions and any platform of the six', async () => {
    const m = await createApprovedMerchant(ctx.app);
    for (const [platform, version] of [
      ['shopify', '1.1.1'],
      ['magento', '2.0.0'],
      ['prestashop', '1.10.0'],
      ['opencart', '1.1.0+build.7'],
      ['custom', '10.0.0'],
    ]) {
      const res = await connect(connectBody(m, { platform, plugin_version: version }));
      expect(res.statusCode, `${platform} ${version}`).toBe(202);
    }
  });

  describe('with ALLOW_PRIVATE_URLS=false', () => {
    let strict: FastifyInstance;
    let close: () => Promise<void>;
    beforeAll(async () => {
      const config = testConfig(ctx.config.databaseUrl, {
        ALLOW_PRIVATE_URLS: 'false',
        SECRETS_KEY: ctx.config.secretsKey.toString('hex'),
      });
      strict = await buildApp({ config, db: ctx.db, temporal: ctx.temporal, providers: ctx.providers }, { logger: false });
      close = () => strict.close();
    });
    afterAll(async () => close());

    it.each([
      ['http on the site host', 'https://www.strict-shop.example', 'http://www.strict-shop.example/hooks'],
      ['a loopback address', 'https://127.0.0.1', 'https://127.0.0.1/hooks'],
      ['a private address', 'https://10.0.0.8', 'https://10.0.0.8/hooks'],
      ['a local name', 'https://shop.local', 'https://api.shop.local/hooks'],
      ['an unrelated public host', 'https://www.strict-shop.example', 'https://hooks.elsewhere.example/x'],
    ])('refuses a callback_url on %s', async (_label, site, callback) => {
      const m = await createApprovedMerchant(ctx.app);
      const res = await connect(connectBody(m, { site_url: site, callback_url: callback }), { app: strict });
      expect(res.statusCode).toBe(422);
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain('callback_url');
    });
  });

  it('still applies the related-host rule when private URLs are allowed', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await connect(connectBody(m, { site_url: 'http://127.0.0.1:8080', callback_url: 'http://127.0.0.2:8080/hooks' }));
    expect(res.statusCode).toBe(422);
    expect(
      (await connect(connectBody(m, { site_url: 'http://127.0.0.1:8080', callback_url: 'http://127.0.0.1:9090/hooks' }))).statusCode,
    ).toBe(202);
  });
});

describe('security code rotation', () => {
  it('invalidates the old code at once, while connected sites and their sessions keep working', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const site = freshSite();
    const connected = (await connect(connectBody(m, { site_url: site }))).json();
    await markSiteVerified(ctx.db, connected.site_id);
    const checkout = (orderId: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/checkout-sessions',
        headers: { authorization: `Bearer ${m.apiKey}` },
        payload: { order_id: orderId, amount: 25, currency: 'USD', country_code: 'US', store_url: site },
      });
    const before = await checkout('before-rotation');
    expect(before.statusCode).toBe(201);

    const rotated = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/security-code/rotate`,
      headers: adminHeaders,
    });
    expect(rotated.statusCode).toBe(200);
    const newCode = rotated.json().securityCode as string;
    expect(newCode).not.toBe(m.securityCode);

    const old = await connect(connectBody(m, { site_url: site }));
    expect(old.statusCode).toBe(401);
    expect(old.json().error).toBe('Unauthorized');

    // The connected site is untouched: same secret, its checkout and its earlier session still work.
    const [row] = await ctx.db.sql`select id, callback_url from sites where id = ${connected.site_id}`;
    expect(row).toEqual({ id: connected.site_id, callback_url: `${site}/?wc-api=svc_webhook` });
    const after = await checkout('after-rotation');
    expect(after.statusCode).toBe(201);
    const lookup = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/payment-sessions/${before.json().session_id}`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    expect(lookup.statusCode).toBe(200);

    const reconnect = await connect(connectBody(m, { site_url: site, security_code: newCode }));
    expect(reconnect.statusCode).toBe(200);
    expect(reconnect.json()).toMatchObject({ site_id: connected.site_id, webhook_secret: connected.webhook_secret });
  });
});
