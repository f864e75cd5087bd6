import { describe, expect, it } from 'vitest';
import { purgeOldRequestLog, REQUEST_LOG_RETENTION_DAYS, requestLogWriter } from '../../src/accounts/request-log';
import { approve, secureOwner, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { useMailSink } from '../support/mail';
import { connectBody, markSiteVerified, pluginConnect } from '../support/plugin-sites';

// The merchant's connected plugin websites (list, disconnect) and the request log of
// its own recent API calls (method, path, status, request id, key; never bodies or secrets), purged
// past its retention; neither shows or changes another merchant's.
const mailbox = useMailSink();
const ctx = useTestApp(mailbox.env);

async function merchantWithCode(email: string, name: string) {
  const owner = await signedUpOwner(ctx.app, mailbox, email, name);
  const apiKey = await approve(ctx.app, owner.merchantId);
  await secureOwner(owner.client);
  const securityCode = (await owner.client.call('POST', '/security-code/rotate')).json().securityCode as string;
  return { ...owner, plugin: { id: owner.merchantId, apiKey, securityCode } };
}

interface LoggedRequest {
  method: string;
  path: string;
  statusCode: number;
  requestId: string;
  key: { id: string; shown: string | null };
}

describe('dashboard: plugin websites and the request log', () => {
  it('lists the plugin websites and disconnects one: its plugin must connect again', async () => {
    const m = await merchantWithCode('sites@example.com', 'Site Shop');
    const body = connectBody(m.plugin);
    const connect = await pluginConnect(ctx.app, body);
    expect(connect.statusCode, connect.body).toBeLessThan(300);
    const listed = await m.client.call('GET', '/sites');
    expect(listed.statusCode).toBe(200);
    const [site] = listed.json().sites;
    expect(site).toMatchObject({ siteUrl: body.site_url, platform: 'woocommerce', status: 'pending_verification', verifiedAt: null });
    expect(listed.body).not.toMatch(/whsec_|svcsv_/);
    await markSiteVerified(ctx.db, site.id);
    expect((await m.client.call('GET', '/sites')).json().sites[0]).toMatchObject({ id: site.id, status: 'connected' });

    const gone = await m.client.call('POST', `/sites/${site.id}/disconnect`);
    expect(gone.statusCode).toBe(200);
    expect(gone.json().site.id).toBe(site.id);
    expect((await m.client.call('GET', '/sites')).json().sites).toEqual([]);
    for (const id of [site.id, 'nonsense']) {
      const res = await m.client.call('POST', `/sites/${id}/disconnect`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toMatchObject({ ok: false, error: 'NotFound' });
    }
    // Connecting again starts a new claim, with a new secret, to be proved again.
    const again = await pluginConnect(ctx.app, body);
    expect(again.statusCode, again.body).toBeLessThan(300);
    const [reclaimed] = (await m.client.call('GET', '/sites')).json().sites;
    expect(reclaimed).toMatchObject({ status: 'pending_verification' });
    expect(reclaimed.id).not.toBe(site.id);
  });

  it('logs the merchant’s API calls without bodies, queries or secrets, and purges them past the retention', async () => {
    const m = await merchantWithCode('requests@example.com', 'Log Shop');
    const restricted = (await m.client.call('POST', '/api-keys', { scopes: ['transactions:read'] })).json();
    const live = { authorization: `Bearer ${m.plugin.apiKey}` };
    const lookup = await ctx.app.inject({ method: 'GET', url: '/api/v1/transactions/SV_none?token=do-not-log', headers: live });
    expect(lookup.statusCode).toBe(404);
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${restricted.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US', orderId: 'secret-order-body' },
    });
    expect(refused.statusCode).toBe(403);
    const invalid = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/transactions/SV_none',
      headers: { authorization: 'Bearer svc_live_nope' },
    });
    expect(invalid.statusCode).toBe(401);

    const log = await eventually(
      async () => m.client.call('GET', '/request-log'),
      (res) => res.json().requests.length >= 2,
    );
    expect(log.json().retentionDays).toBe(REQUEST_LOG_RETENTION_DAYS);
    const requests: LoggedRequest[] = log.json().requests;
    expect(requests).toEqual([
      {
        at: expect.any(String),
        method: 'POST',
        path: '/api/v1/checkout/sessions',
        statusCode: 403,
        requestId: refused.headers['x-request-id'],
        key: { id: restricted.key.id, shown: `${restricted.key.prefix}…${restricted.key.last4}` },
      },
      {
        at: expect.any(String),
        method: 'GET',
        path: '/api/v1/transactions/SV_none',
        statusCode: 404,
        requestId: lookup.headers['x-request-id'],
        key: { id: expect.stringMatching(/^key_/), shown: `${m.plugin.apiKey.slice(0, 12)}…${m.plugin.apiKey.slice(-4)}` },
      },
    ]);
    for (const secret of ['do-not-log', 'secret-order-body', m.plugin.apiKey, restricted.apiKey]) expect(log.body).not.toContain(secret);

    // The sweep's purge: older than the retention goes, the rest stays.
    await ctx.db.sql`update api_request_log set created_at = now() - make_interval(days => ${REQUEST_LOG_RETENTION_DAYS + 1})
      where request_id = ${lookup.headers['x-request-id'] as string}`;
    expect(await purgeOldRequestLog(ctx.db.db)).toBeGreaterThanOrEqual(1);
    expect((await m.client.call('GET', '/request-log')).json().requests.map((r: LoggedRequest) => r.statusCode)).toEqual([403]);
  });

  it('cross-tenant: sites and request log are the merchant’s own', async () => {
    const a = await merchantWithCode('sites-a@example.com', 'Shop A');
    const b = await merchantWithCode('sites-b@example.com', 'Shop B');
    expect((await pluginConnect(ctx.app, connectBody(b.plugin))).statusCode).toBeLessThan(300);
    const siteB = (await b.client.call('GET', '/sites')).json().sites[0];
    await ctx.app.inject({ method: 'GET', url: '/api/v1/transactions/SV_b', headers: { authorization: `Bearer ${b.plugin.apiKey}` } });
    await eventually(
      async () => (await b.client.call('GET', '/request-log')).json().requests.length,
      (n) => n === 1,
    );

    expect((await a.client.call('GET', '/sites')).json().sites).toEqual([]);
    expect((await a.client.call('GET', '/request-log')).json().requests).toEqual([]);
    const disconnect = await a.client.call('POST', `/sites/${siteB.id}/disconnect`);
    expect(disconnect.statusCode).toBe(404);
    expect(disconnect.json()).toMatchObject({ ok: false, error: 'NotFound' });
    expect((await b.client.call('GET', '/sites')).json().sites).toEqual([siteB]);
  });

  it('writes the log in batches: many calls in one insert, nothing waiting lost on close, a full buffer drops lines rather than grow', async () => {
    const errors: unknown[] = [];
    const writer = requestLogWriter(ctx.db.db, (err) => errors.push(err), { intervalMs: 60_000, maxBatch: 1000, maxPending: 25 });
    const merchantId = `MER_batch${Date.now()}`.slice(0, 20);
    for (let i = 0; i < 30; i++) {
      writer.record({
        merchantId,
        keyId: 'key_batch',
        method: 'GET',
        url: `/api/v1/transactions/SV_${i}?q=secret`,
        statusCode: 404,
        requestId: `req-${i}`,
      });
    }
    // Nothing written yet: the interval has not passed and the batch is not full.
    expect((await ctx.db.sql`select count(*)::int as n from api_request_log where merchant_id = ${merchantId}`)[0]!.n).toBe(0);
    await writer.close();
    const rows = await ctx.db.sql`select path from api_request_log where merchant_id = ${merchantId} order by id`;
    expect(rows.map((r) => r.path)).toEqual(Array.from({ length: 25 }, (_, i) => `/api/v1/transactions/SV_${i}`));
    expect(errors).toEqual([]);
  });
});
