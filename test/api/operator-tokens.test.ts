import type { FastifyInstance } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, useTestApp } from '../support/harness';

// The operator's tokens (ADMIN_TOKEN, METRICS_TOKEN). Authentication comes
// before anything else a route does, so without the right token every admin route answers 401
// whatever the request carries; wrong tokens are limited per client address, and the right token is
// never locked out by someone else's failures at the same address.
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghij';
const ctx = useTestApp({ METRICS_TOKEN });

beforeEach(async () => {
  await ctx.db.sql`delete from auth_failures`;
});

/**
 * Every route the app serves under /admin/v1, with its methods, read from the app's own route tree
 * (printRoutes), so a route added later is covered without editing this test. Each line of the tree
 * is a path segment below its parent's, indented four characters a level.
 */
function adminRoutes(app: FastifyInstance): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    const url = (depth > 0 ? stack[depth - 1]! : '') + match[2]!;
    stack.push(url);
    if (!match[3] || !url.startsWith('/admin/v1/')) continue;
    for (const method of match[3].split(', ')) routes.push({ method, url });
  }
  return routes;
}

// Junk in every place a route reads from: ids that are no ids, a query that fails any schema, a
// body with unknown fields. Before this was fixed, routes validated it first and answered 422.
const junkUrl = (url: string) => `${url.replace(/:[A-Za-z]+/g, 'not-an-id')}?limit=-1&status=junk&from=yesterday`;
const withBody = (method: string) => method !== 'GET' && method !== 'HEAD';

async function send(method: string, url: string, headers: Record<string, string>, remoteAddress: string, payload?: string) {
  const body = payload ?? (withBody(method) ? '{"junk":true,"amount":"NaN"}' : undefined);
  return ctx.app.inject({
    method: method as 'GET',
    url: junkUrl(url),
    remoteAddress,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: body }),
  });
}

function expectUnauthorized(res: Awaited<ReturnType<typeof send>>, label: string) {
  expect(res.statusCode, `${label}: ${res.body}`).toBe(401);
  // HEAD answers carry no body; the status and request id are what a client gets.
  expect(res.headers['x-request-id'], label).toEqual(expect.any(String));
  if (res.body)
    expect(res.json(), label).toEqual({
      ok: false,
      error: 'Unauthorized',
      message: expect.any(String),
      requestId: res.headers['x-request-id'],
    });
}

describe('admin routes authenticate before they validate', () => {
  const routes = () => adminRoutes(ctx.app);

  it('finds the admin routes in the app', () => {
    // A floor, not a list: the point is that the enumeration works, not which routes exist today.
    const found = routes();
    expect(found.length).toBeGreaterThanOrEqual(25);
    expect(found).toContainEqual({ method: 'POST', url: '/admin/v1/merchants' });
    expect(found).toContainEqual({ method: 'POST', url: '/admin/v1/exceptions/:id/refund' });
    expect(found).toContainEqual({ method: 'PUT', url: '/admin/v1/settings/payments' });
  });

  it('answers 401 to a request without a token on every admin route, whatever its ids, query and body', async () => {
    for (const [i, { method, url }] of routes().entries()) {
      expectUnauthorized(await send(method, url, {}, `198.51.100.${i % 250}`), `${method} ${url} without a token`);
      // Nor is the body parsed first: malformed JSON is still a 401, not a 400.
      if (withBody(method))
        expectUnauthorized(await send(method, url, {}, `198.51.100.${i % 250}`, '{"junk":'), `${method} ${url} with malformed JSON`);
    }
    expect((await ctx.db.sql`select count(*)::int as n from auth_failures`)[0]!.n).toBe(0);
  });

  it('answers 401 to a wrong token on every admin route, and with the right token the same request reaches the route', async () => {
    for (const [i, { method, url }] of routes().entries()) {
      // One client address per route keeps the per-address limit out of this test.
      const address = `203.0.113.${i % 250}`;
      expectUnauthorized(
        await send(method, url, { authorization: 'Bearer wrong-admin-token-0123456789abcdef' }, address),
        `${method} ${url} with a wrong token`,
      );
      expectUnauthorized(
        await send(method, url, { authorization: 'Basic YWRtaW46YWRtaW4=' }, address),
        `${method} ${url} with another scheme`,
      );
      const admitted = await send(method, url, { authorization: `Bearer ${ADMIN_TOKEN}` }, address);
      // The route itself answers now (its validation, or its answer): anything but the token's 401.
      expect(admitted.statusCode, `${method} ${url} with the right token: ${admitted.body}`).not.toBe(401);
      expect(admitted.statusCode, `${method} ${url} with the right token`).not.toBe(429);
    }
  });

  it('refuses a merchant key on every admin route', async () => {
    for (const [i, { method, url }] of routes().entries()) {
      expectUnauthorized(
        await send(method, url, { authorization: `Bearer svc_live_${'a'.repeat(32)}` }, `192.0.2.${i % 250}`),
        `${method} ${url} with a merchant key`,
      );
    }
  });
});

const admin = (token: string | null, remoteAddress = '10.1.2.3') =>
  ctx.app.inject({
    method: 'GET',
    url: '/admin/v1/settings/payments',
    remoteAddress,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
const scrape = (token: string | null, remoteAddress = '10.1.2.3') =>
  ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers: token ? { authorization: `Bearer ${token}` } : {} });
const failures = async (dimension: string) =>
  (await ctx.db.sql`select count(*)::int as n from auth_failures where dimension = ${dimension}`)[0]!.n as number;

function expectRateLimited(res: Awaited<ReturnType<typeof admin>>) {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toEqual({ ok: false, error: 'RateLimited', message: expect.any(String), requestId: res.headers['x-request-id'] });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe.each([
  { name: 'the admin token', request: admin, right: ADMIN_TOKEN, dimension: 'admin_ip', other: scrape, otherDimension: 'metrics_ip' },
  { name: 'the metrics token', request: scrape, right: METRICS_TOKEN, dimension: 'metrics_ip', other: admin, otherDimension: 'admin_ip' },
])('$name: 20 wrong a minute per client address', ({ request, right, dimension, other, otherDimension }) => {
  it('refuses the 21st wrong token with 429 and Retry-After, and still lets the right token through', async () => {
    for (let i = 0; i < 20; i++) expect((await request(`wrong-token-${i}-0123456789abcdefghij`)).statusCode, `attempt ${i + 1}`).toBe(401);
    expectRateLimited(await request('wrong-again-0123456789abcdefghij'));

    // The operator behind the same address is not locked out by someone else's guesses...
    for (let i = 0; i < 3; i++) expect((await request(right)).statusCode).toBe(200);
    // ...and letting them in neither lifts the limit nor counts.
    expectRateLimited(await request('wrong-once-more-0123456789abcdefghij'));
    expect(await failures(dimension)).toBe(20);
    // A request that presents no token guesses nothing: 401, during the lockout too, uncounted.
    expect((await request(null)).statusCode).toBe(401);
    expect(await failures(dimension)).toBe(20);

    // Another address is not limited, and the other token keeps a count of its own.
    expect((await request('wrong-elsewhere-0123456789abcdefghij', '10.9.9.9')).statusCode).toBe(401);
    expect((await other('wrong-other-token-0123456789abcdefghij')).statusCode).toBe(401);
    expect(await failures(otherDimension)).toBe(1);

    // Once the window has passed, wrong tokens are answered 401 again.
    await ctx.db.sql`update auth_failures set occurred_at = occurred_at - interval '61 seconds'`;
    expect((await request('wrong-later-0123456789abcdefghij')).statusCode).toBe(401);
  });

  it('does not count right tokens', async () => {
    for (let i = 0; i < 25; i++) expect((await request(right)).statusCode).toBe(200);
    expect(await failures(dimension)).toBe(0);
  });
});
