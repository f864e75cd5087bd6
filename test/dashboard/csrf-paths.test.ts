import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { approve, DashboardClient, secureOwner, signedInMember, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// The dashboard API's CSRF guard belongs to its routes, not to a spelling of their path: whatever form
// of the path the router sends to an API route (percent-encoded, doubled slashes, another case, dot
// segments, a semicolon), a cross-site write without the token meets the same 403, or finds no route.
// Sent over a real socket, byte for byte: an HTTP client would tidy some of these paths up first.

function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const { hostname, port } = new URL(base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { hostname, port, method, path, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Ways of writing /dashboard/api/… that a lenient URL check would not recognise. */
const FORMS = [
  '/dashboard/%61pi',
  '/dashboard/ap%69',
  '/%64ashboard/api',
  '/dashboard//api',
  '//dashboard/api',
  '/Dashboard/API',
  '/dashboard/API',
  '/dashboard/x/../api',
  '/dashboard/./api',
  '/dashboard/api/.',
];
/** The forms the router decodes to the canonical path: they reach the route, so the guard answers. */
const DECODED = new Set(['/dashboard/%61pi', '/dashboard/ap%69', '/%64ashboard/api']);

describe('dashboard CSRF guard, whatever the form of the path', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env, { listen: true });

  it('refuses cross-site writes without the token on every form of the path that reaches a route', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'forms@example.com');
    await approve(ctx.app, merchantId);
    const key = await client.call('POST', '/api-keys', { scopes: ['transactions:read'] });
    expect(key.statusCode).toBe(201);
    const keyId: string = key.json().key.id;
    const keysBefore = (await client.call('GET', '/api-keys')).json().keys.length as number;
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const foreign = { cookie, origin: 'https://evil.example' };

    const writes: { method: string; path: string; body?: unknown }[] = [
      { method: 'POST', path: '/sign-out-everywhere' },
      { method: 'POST', path: '/team/invitations', body: { email: 'intruder@example.com', role: 'admin' } },
      { method: 'POST', path: `/api-keys/${keyId}/revoke` },
      { method: 'POST', path: '/api-keys', body: { scopes: ['transactions:read'] } },
      { method: 'POST', path: '/two-factor/enroll' },
    ];
    for (const write of writes) {
      // The canonical path, for comparison: refused.
      const canonical = await raw(ctx.baseUrl, write.method, `/dashboard/api${write.path}`, foreign, write.body);
      expect(canonical.status, write.path).toBe(403);
      for (const form of FORMS) {
        const path = `${form}${write.path}`;
        const res = await raw(ctx.baseUrl, write.method, path, foreign, write.body);
        expect([403, 404], `${write.method} ${path}: ${res.status} ${res.body}`).toContain(res.status);
      }
      // A semicolon is no delimiter here: the path with one names no route.
      const semicolon = await raw(ctx.baseUrl, write.method, `/dashboard/api${write.path};x=1`, foreign, write.body);
      expect([403, 404], `${write.path};x=1`).toContain(semicolon.status);
    }

    // Nothing happened: still signed in, no invitation, the key in force, no second factor begun.
    expect((await client.call('GET', '/me')).statusCode).toBe(200);
    expect((await client.call('GET', '/team/invitations')).json().invitations).toEqual([]);
    const keys = (await client.call('GET', '/api-keys')).json().keys as { id: string; revokedAt: string | null }[];
    expect(keys).toHaveLength(keysBefore);
    expect(keys.find((k) => k.id === keyId)).toMatchObject({ revokedAt: null });
    const enrolments = await ctx.db.sql`select count(*)::int as n from dashboard_users where totp_secret_encrypted is not null`;
    expect(enrolments[0]!.n).toBe(0);
  });

  it('refuses them for an owner who just stepped up too, where only the token stands in the way', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'stepped-up@example.com');
    await approve(ctx.app, merchantId);
    // A second factor and a fresh step-up: every step-up action below would pass its own checks.
    await secureOwner(client);
    const endpoint = await client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/kept' });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const endpointId: string = endpoint.json().endpoint.id;
    const { userId: viewerId } = await signedInMember(ctx.app, ctx.db.sql, merchantId, 'kept-viewer@example.com', 'viewer');
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const foreign = { cookie, origin: 'https://evil.example' };

    // Everything a cross-site write could change, read straight from the tables.
    const state = async () => ({
      audit: await ctx.db.sql`select id, action from dashboard_audit_log where merchant_id = ${merchantId} order by id`,
      merchant: await ctx.db.sql`select security_code_hash, payout_requested_at from merchants where id = ${merchantId}`,
      keys: await ctx.db.sql`select id, key_hash, revoked_at, expires_at from api_keys where merchant_id = ${merchantId} order by id`,
      endpoints: await ctx.db
        .sql`select id, enabled, secret_encrypted from webhook_endpoints where merchant_id = ${merchantId} order by id`,
      members: await ctx.db.sql`select id, role from dashboard_users where merchant_id = ${merchantId} order by id`,
      invitations: await ctx.db.sql`select id from dashboard_invitations where merchant_id = ${merchantId}`,
      sessions: await ctx.db.sql`select s.token_hash from dashboard_sessions s join dashboard_users u on u.id = s.user_id
        where u.merchant_id = ${merchantId} order by s.token_hash`,
    });
    const before = await state();

    const every = ['checkout_sessions:create', 'payment_links:create', 'transactions:read', 'plugin:connect'];
    const writes: { method: string; path: string; body?: unknown }[] = [
      { method: 'POST', path: `/webhook-endpoints/${endpointId}/disable` },
      { method: 'POST', path: `/webhook-endpoints/${endpointId}/roll-secret` },
      { method: 'DELETE', path: `/webhook-endpoints/${endpointId}` },
      { method: 'POST', path: '/webhook-endpoints', body: { url: 'http://127.0.0.1:9/intruder' } },
      { method: 'POST', path: '/api-keys', body: { scopes: every } },
      { method: 'POST', path: '/api-keys/live/rotate' },
      { method: 'POST', path: '/security-code/rotate' },
      { method: 'POST', path: '/payout-settings/request' },
      { method: 'POST', path: `/team/${viewerId}/role`, body: { role: 'admin' } },
      { method: 'DELETE', path: `/team/${viewerId}` },
      { method: 'POST', path: '/team/invitations', body: { email: 'intruder@example.com', role: 'admin' } },
      { method: 'POST', path: '/sign-out-everywhere' },
    ];
    for (const write of writes) {
      for (const form of ['/dashboard/api', ...FORMS]) {
        const path = `${form}${write.path}`;
        const res = await raw(ctx.baseUrl, write.method, path, foreign, write.body);
        const label = `${write.method} ${path}: ${res.status} ${res.body}`;
        if (form === '/dashboard/api' || DECODED.has(form)) expect(res.status, label).toBe(403);
        else expect([403, 404], label).toContain(res.status);
        expect(res.body, label).not.toMatch(/whsec_|sk_live_|svc_live_|securityCode/);
      }
    }

    expect(await state()).toEqual(before);
  });

  it('still accepts a same-site write with the token, on the canonical path', async () => {
    const { client } = await signedUpOwner(ctx.app, mailbox, 'canonical@example.com');
    const res = await client.call('POST', '/team/invitations', { email: 'new@example.com', role: 'viewer' });
    expect(res.statusCode).toBe(201);
    // A safe method needs no token.
    expect((await new DashboardClient(ctx.app).call('GET', '/me')).statusCode).toBe(401);
  });

  it('empties the key cache after a write through another form of the path, as through the canonical one', async () => {
    const { client, merchantId } = await signedUpOwner(ctx.app, mailbox, 'cache@example.com');
    await approve(ctx.app, merchantId);
    const issued = await client.call('POST', '/api-keys', { scopes: ['transactions:read'] });
    expect(issued.statusCode).toBe(201);
    const lookup = () =>
      ctx.app.inject({
        method: 'GET',
        url: '/api/v1/transactions/SV_none',
        headers: { authorization: `Bearer ${issued.json().apiKey as string}` },
      });
    // Authenticated, and so in the cache.
    expect((await lookup()).statusCode).toBe(404);
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const sameSite = { cookie, 'x-csrf-token': client.cookies.get('svc_dash_csrf')!, origin: new URL(ctx.baseUrl).origin };
    const revoke = await raw(ctx.baseUrl, 'POST', `/dashboard/%61pi/api-keys/${issued.json().key.id as string}/revoke`, sameSite);
    expect(revoke.status, revoke.body).toBe(200);
    expect((await lookup()).statusCode).toBe(401);
  });
});
