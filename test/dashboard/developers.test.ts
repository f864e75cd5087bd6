import { describe, expect, it } from 'vitest';
import { approve, secureOwner, signedInMember, signedUpOwner, stepUp } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// The developers area: keys, webhook endpoints, the Security Code; each secret
// shown once; roles; and no route shows or changes another merchant's data.
describe('dashboard developers area', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  it('lists keys without secrets, rotates the live key with 24 h overlap, rotates the Security Code', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'dev@example.com');
    const firstKey = await approve(ctx.app, merchantId);
    // Rotations show a secret: an owner steps up with a second factor first.
    expect((await client.call('POST', '/api-keys/live/rotate')).statusCode).toBe(403);
    await secureOwner(client);
    const keys = await client.call('GET', '/api-keys');
    expect(keys.statusCode).toBe(200);
    expect(keys.body).not.toContain(firstKey);
    expect(keys.json().keys).toEqual([
      expect.objectContaining({ kind: 'live', prefix: firstKey.slice(0, 12), last4: firstKey.slice(-4), expiresAt: null }),
    ]);

    const rotated = await client.call('POST', '/api-keys/live/rotate');
    expect(rotated.statusCode).toBe(200);
    const { apiKey, previousKeyExpiresAt } = rotated.json();
    expect(apiKey).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
    expect(new Date(previousKeyExpiresAt).getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    for (const key of [firstKey, apiKey]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/transactions/SV_none', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode, 'both keys work during the overlap').toBe(404);
    }
    expect((await client.call('GET', '/api-keys')).body).not.toContain(apiKey);

    const code = await client.call('POST', '/security-code/rotate');
    expect(code.statusCode).toBe(200);
    expect(code.json().securityCode).toMatch(/^[A-HJ-NP-Z2-9]{6}(-[A-HJ-NP-Z2-9]{6}){3}$/);
  });

  it('adds a webhook endpoint whose signing secret is shown once, and refuses a bad URL', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'hooks@example.com');
    await approve(ctx.app, merchantId);
    await secureOwner(client);
    const added = await client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' });
    expect(added.statusCode).toBe(201);
    const { endpoint, secret } = added.json();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    const list = await client.call('GET', '/webhook-endpoints');
    expect(list.json().endpoints).toEqual([endpoint]);
    expect(list.body).not.toContain(secret);
    const rolled = await client.call('POST', `/webhook-endpoints/${endpoint.id}/roll-secret`);
    expect(rolled.statusCode).toBe(200);
    expect(rolled.json()).toEqual({ ok: true, endpoint, secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/) });
    expect(rolled.json().secret).not.toBe(secret);
    for (const id of ['we_0000000000000000', 'nonsense']) {
      expect((await client.call('POST', `/webhook-endpoints/${id}/roll-secret`)).statusCode, id).toBe(404);
    }
    const bad = await client.call('POST', '/webhook-endpoints', { url: 'ftp://example.com/x' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ ok: false, error: 'ValidationError', details: [{ path: 'url' }] });
  });

  it('asks for a step-up before a new webhook endpoint or a key with every scope, as before a rotation', async () => {
    const { client: owner, merchantId } = await signedUpOwner(ctx.app, mailbox, 'step-up-first@example.com');
    await approve(ctx.app, merchantId);
    const { client: admin } = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'step-up-admin@example.com', 'admin');
    const every = { scopes: ['checkout_sessions:create', 'payment_links:create', 'transactions:read', 'plugin:connect'] };
    for (const client of [owner, admin]) {
      for (const [url, body] of [
        ['/webhook-endpoints', { url: 'http://127.0.0.1:9/not-yet' }],
        ['/api-keys', every],
      ] as const) {
        const refused = await client.call('POST', url, body);
        expect(refused.statusCode, url).toBe(403);
        expect(refused.json()).toMatchObject({ ok: false, error: 'Forbidden' });
        expect(refused.body).not.toMatch(/whsec_|svc_live_/);
      }
      // A narrower key does not ask.
      expect((await client.call('POST', '/api-keys', { scopes: ['transactions:read'] })).statusCode).toBe(201);
    }
    expect((await owner.call('GET', '/webhook-endpoints')).json().endpoints).toEqual([]);
    expect((await owner.call('GET', '/api-keys')).json().keys).toHaveLength(3);

    // The owner with their second factor, the admin with their password: then both may.
    await secureOwner(owner);
    await stepUp(admin);
    for (const client of [owner, admin]) {
      expect((await client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/now' })).statusCode).toBe(201);
      const issued = await client.call('POST', '/api-keys', every);
      expect(issued.statusCode).toBe(201);
      expect(issued.json().key.scopes).toEqual(expect.arrayContaining(every.scopes));
    }
  });

  it('keeps keys and secrets from a viewer', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'viewer@example.com');
    await approve(ctx.app, merchantId);
    await ctx.db.sql`update dashboard_users set role = 'viewer' where email = 'viewer@example.com'`;
    const bodies: Record<string, unknown> = {
      '/webhook-endpoints': { url: 'http://127.0.0.1:9/v' },
      '/api-keys': { scopes: ['transactions:read'] },
    };
    for (const [method, url] of [
      ['GET', '/api-keys'],
      ['POST', '/api-keys'],
      ['POST', '/api-keys/key_0000000000000000/revoke'],
      ['POST', '/api-keys/live/reveal'],
      ['POST', '/api-keys/live/rotate'],
      ['POST', '/security-code/rotate'],
      ['GET', '/webhook-endpoints'],
      ['POST', '/webhook-endpoints'],
      ['POST', '/webhook-endpoints/we_0000000000000000/roll-secret'],
      ['POST', '/webhook-endpoints/we_0000000000000000/enable'],
      ['POST', '/webhook-endpoints/we_0000000000000000/disable'],
      ['POST', '/webhook-endpoints/we_0000000000000000/test'],
      ['DELETE', '/webhook-endpoints/we_0000000000000000'],
      ['GET', '/webhook-deliveries'],
      ['POST', '/webhook-deliveries/dlv_000000000000000000000000/resend'],
      ['GET', '/sites'],
      ['POST', '/sites/site_0000000000000000/disconnect'],
      ['GET', '/request-log'],
    ] as const) {
      const res = await client.call(method, url, method === 'POST' ? bodies[url] : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({ ok: false, error: 'Forbidden' });
    }
    expect((await client.call('GET', '/me')).json()).toMatchObject({ user: { role: 'viewer' }, liveKeyWaiting: false });
  });

  it('cross-tenant: no route shows or changes another merchant’s data', async () => {
    const a = await signedUpOwner(ctx.app, mailbox, 'tenant-a@example.com', 'Shop A');
    const b = await signedUpOwner(ctx.app, mailbox, 'tenant-b@example.com', 'Shop B');
    const [keyA, keyB] = [await approve(ctx.app, a.merchantId), await approve(ctx.app, b.merchantId)];
    await secureOwner(a.client);
    await secureOwner(b.client);
    const hookB = (await b.client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/b-only' })).json();

    // Reads: A sees A only.
    const meA = (await a.client.call('GET', '/me')).json();
    expect(meA.merchant).toMatchObject({ id: a.merchantId, name: 'Shop A' });
    const keysA = await a.client.call('GET', '/api-keys');
    expect(keysA.json().keys.map((k: { last4: string }) => k.last4)).toEqual([keyA.slice(-4)]);
    expect(keysA.body).not.toContain(keyB.slice(0, 12) + '"');
    const hooksA = await a.client.call('GET', '/webhook-endpoints');
    expect(hooksA.json().endpoints).toEqual([]);
    expect(hooksA.body).not.toContain(hookB.endpoint.id);

    // Writes: A's reveal, rotations and new endpoint touch A only.
    expect((await a.client.call('POST', '/api-keys/live/reveal')).json().apiKey).toBe(keyA);
    expect((await b.client.call('GET', '/me')).json().liveKeyWaiting).toBe(true);
    await a.client.call('POST', '/api-keys/live/rotate');
    await a.client.call('POST', '/security-code/rotate');
    await a.client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/a-only' });
    // B's endpoint, test delivery and restricted key: not found for A, whatever A does to them.
    const restrictedB = (await b.client.call('POST', '/api-keys', { scopes: ['transactions:read'] })).json();
    const testB = await b.client.call('POST', `/webhook-endpoints/${hookB.endpoint.id}/test`);
    expect(testB.statusCode).toBe(202);
    for (const [method, url] of [
      ['POST', `/webhook-endpoints/${hookB.endpoint.id}/roll-secret`],
      ['POST', `/webhook-endpoints/${hookB.endpoint.id}/disable`],
      ['POST', `/webhook-endpoints/${hookB.endpoint.id}/enable`],
      ['POST', `/webhook-endpoints/${hookB.endpoint.id}/test`],
      ['DELETE', `/webhook-endpoints/${hookB.endpoint.id}`],
      ['POST', `/webhook-deliveries/${testB.json().deliveryId}/resend`],
      ['POST', `/api-keys/${restrictedB.key.id}/revoke`],
    ] as const) {
      const res = await a.client.call(method, url);
      expect(res.statusCode, `${method} ${url}: another merchant’s is not found`).toBe(404);
      expect(res.json()).toMatchObject({ ok: false, error: 'NotFound' });
    }
    const logA = await a.client.call('GET', '/webhook-deliveries');
    expect(logA.json().deliveries).toEqual([]);
    expect((await a.client.call('GET', '/webhook-deliveries?eventType=webhook.test')).body).not.toContain(testB.json().deliveryId);
    expect((await b.client.call('GET', '/webhook-deliveries')).json().deliveries.map((d: { id: string }) => d.id)).toEqual([
      testB.json().deliveryId,
    ]);
    expect((await a.client.call('GET', '/api-keys')).body).not.toContain(restrictedB.key.id);
    const keysB = (await b.client.call('GET', '/api-keys')).json().keys;
    expect(keysB).toEqual([
      expect.objectContaining({ last4: keyB.slice(-4), expiresAt: null }),
      expect.objectContaining({ id: restrictedB.key.id, revokedAt: null }),
    ]);
    expect((await b.client.call('GET', '/webhook-endpoints')).json().endpoints).toEqual([hookB.endpoint]);
    const codes = await ctx.db
      .sql`select id, security_code_rotated_at > approved_at as rotated from merchants where id in (${a.merchantId}, ${b.merchantId})`;
    expect(Object.fromEntries(codes.map((r) => [r.id, r.rotated]))).toEqual({ [a.merchantId]: true, [b.merchantId]: false });
    expect((await b.client.call('POST', '/api-keys/live/reveal')).json().apiKey).toBe(keyB);
  });
});
