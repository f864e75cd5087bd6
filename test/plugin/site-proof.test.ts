import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';

// A plugin connection becomes active only once its website proves control, by
// serving the connection's token at /.well-known/svc-checkout.txt. Each test's website is a real
// HTTP server on its own port (so its own origin); ALLOW_PRIVATE_URLS lets the service reach it.

const ctx = useTestApp();
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

type Answer = { status: number; body?: string; location?: string };

/** A merchant's website; `answer` decides what its proof path serves. */
async function website(answer: () => Answer) {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const a = req.url === '/.well-known/svc-checkout.txt' ? answer() : { status: 404 };
    res.writeHead(a.status, { 'content-type': 'text/plain', ...(a.location ? { location: a.location } : {}) });
    res.end(a.body ?? '');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, paths };
}

type Merchant = Awaited<ReturnType<typeof createApprovedMerchant>>;

const connect = (m: Merchant, site: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/v1/plugin/connect',
    payload: {
      merchant_id: m.id,
      api_key: m.apiKey,
      security_code: m.securityCode,
      platform: 'woocommerce',
      site_url: site,
      callback_url: `${site}/?wc-api=svc_webhook`,
      plugin_version: '1.2.0',
    },
  });

const checkout = (m: Merchant, site: string, orderId: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout-sessions',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { order_id: orderId, amount: 25, currency: 'USD', country_code: 'US', store_url: site },
  });

describe('proof of site control', () => {
  it('keeps a new connection pending, refusing its checkouts, until the site serves the token; then it is connected', async () => {
    const m = await createApprovedMerchant(ctx.app);
    let answer: Answer = { status: 404 };
    const site = await website(() => answer);

    const first = await connect(m, site.url);
    expect(first.statusCode).toBe(202);
    const pending = first.json();
    expect(pending).toMatchObject({
      status: 'pending_verification',
      verification: { url: `${site.url}/.well-known/svc-checkout.txt`, last_check: null },
    });
    // A claim made by this request cannot be proven yet: the site was not asked.
    expect(site.paths).toEqual([]);

    const refused = await checkout(m, site.url, 'too-early');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      ok: false,
      error: 'Conflict',
      message: expect.stringContaining('/.well-known/svc-checkout.txt'),
    });
    expect((await ctx.db.sql`select count(*)::int as n from checkout_sessions where merchant_id = ${m.id}`)[0]!.n).toBe(0);

    // Not found, then the wrong token: still pending, and the answer says what was found.
    const notFound = await connect(m, site.url);
    expect(notFound.statusCode).toBe(202);
    expect(notFound.json().verification.last_check).toContain('HTTP 404');
    answer = { status: 200, body: 'svcsv_someone_elses_token\n' };
    const wrong = await connect(m, site.url);
    expect(wrong.statusCode).toBe(202);
    expect(wrong.json().verification.last_check).toContain('does not contain');

    // The token, among other lines: connected, with the same site_id and secret.
    answer = { status: 200, body: `# svc checkout\n${pending.verification.token}\r\n` };
    const verified = await connect(m, site.url);
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toMatchObject({ status: 'connected', site_id: pending.site_id, webhook_secret: pending.webhook_secret });
    expect(verified.json()).not.toHaveProperty('verification');
    const [row] = await ctx.db.sql`select status, verified_at from sites where id = ${pending.site_id}`;
    expect(row!.status).toBe('connected');
    expect(row!.verified_at).not.toBeNull();
    expect((await checkout(m, site.url, 'after-proof')).statusCode).toBe(201);

    // Once verified, a reconnect does not depend on the file any more.
    answer = { status: 500 };
    const requests = site.paths.length;
    expect((await connect(m, site.url)).statusCode).toBe(200);
    expect(site.paths).toHaveLength(requests);
  });

  it('does not follow a redirect to find the token', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const elsewhere = await website(() => ({ status: 200, body: token }));
    let token = '';
    const site = await website(() => ({ status: 302, location: `${elsewhere.url}/.well-known/svc-checkout.txt` }));
    token = (await connect(m, site.url)).json().verification.token;
    const again = await connect(m, site.url);
    expect(again.statusCode).toBe(202);
    expect(again.json().verification.last_check).toContain('HTTP 302');
    expect(elsewhere.paths).toEqual([]);
  });

  it('tells a second merchant that the site is held only after it too has proved control', async () => {
    const owner = await createApprovedMerchant(ctx.app);
    const buyer = await createApprovedMerchant(ctx.app);
    const tokens: string[] = [];
    const site = await website(() => ({ status: 200, body: tokens.join('\n') }));

    const ownerClaim = (await connect(owner, site.url)).json();
    const buyerClaim = (await connect(buyer, site.url)).json();
    expect(buyerClaim.status).toBe('pending_verification');
    expect(buyerClaim.verification.token).not.toBe(ownerClaim.verification.token);

    tokens.push(ownerClaim.verification.token);
    expect((await connect(owner, site.url)).statusCode).toBe(200);
    // The buyer cannot serve its token: pending, and told nothing about the owner.
    const stillPending = await connect(buyer, site.url);
    expect(stillPending.statusCode).toBe(202);
    expect(stillPending.body).not.toContain(owner.id);

    // Whoever controls the site now serves the buyer's token too: only now the conflict is named.
    tokens.push(buyerClaim.verification.token);
    const conflict = await connect(buyer, site.url);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('another account') });
    expect(conflict.body).not.toContain(owner.id);
    expect((await checkout(buyer, site.url, 'not-yours')).statusCode).toBe(409);
    const rows = await ctx.db.sql`select merchant_id, status from sites where origin = ${site.url} order by status`;
    expect(rows).toEqual([
      { merchant_id: owner.id, status: 'connected' },
      { merchant_id: buyer.id, status: 'pending_verification' },
    ]);
  });
});
