import { describe, expect, it } from 'vitest';
import { LINK_SESSION_WINDOW_SECONDS, MAX_LINK_SESSIONS_PER_ADDRESS, MAX_SESSIONS_PER_LINK } from '../../src/payments/link-session-limits';
import { createApprovedMerchant, useTestApp } from '../support/harness';

// Pay on a link's page again from the same browser goes back to its open session
// (a cookie), and new sessions are limited per link and per client address, counted in Postgres.
// Sessions are opened for real (row and workflow start); no worker is needed to open them.
const ctx = useTestApp();

async function createLink() {
  const m = await createApprovedMerchant(ctx.app, { name: 'Visitors' });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/payment-links',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 30, currency: 'USD' },
  });
  expect(res.statusCode).toBe(201);
  return res.json().paymentLink.id as string;
}

const pay = (linkId: string, options: { cookie?: string; address?: string; country?: string } = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: `/link/${linkId}/pay`,
    remoteAddress: options.address ?? '192.0.2.10',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(options.cookie ? { cookie: options.cookie } : {}) },
    payload: `country=${options.country ?? 'US'}`,
  });

const sessionIn = (location: unknown) => /\/pay\/(SV_[0-9A-Za-z]{24})$/.exec(String(location))![1]!;
const sessionsOf = async (linkId: string) =>
  (await ctx.db.sql`select count(*)::int as n from checkout_sessions where payment_link_id = ${linkId}`)[0]!.n as number;
const counted = async (dimension: string, subject: string) =>
  (await ctx.db.sql`select count(*)::int as n from auth_failures where dimension = ${dimension} and subject = ${subject}`)[0]!.n as number;
/** What other API processes counted: rows of the same table, as they write them. */
const countedElsewhere = (dimension: string, subject: string, n: number) =>
  ctx.db.sql`insert into auth_failures (dimension, subject) select ${dimension}, ${subject} from generate_series(1, ${n})`;

describe('the visitor’s own session', () => {
  it('sets an HttpOnly, SameSite=Lax cookie scoped to the link, and a second Pay with it goes back to the same session', async () => {
    const linkId = await createLink();
    const first = await pay(linkId, { address: '192.0.2.11' });
    expect(first.statusCode).toBe(303);
    const sessionId = sessionIn(first.headers.location);
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(new RegExp(`^svc_link_session=${sessionId}; Path=/link/${linkId}; Max-Age=\\d+; HttpOnly; SameSite=Lax$`));
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)![1]);
    expect(maxAge).toBeGreaterThan(23 * 3600);
    expect(maxAge).toBeLessThanOrEqual(24 * 3600);

    for (let i = 0; i < 3; i++) {
      const again = await pay(linkId, { address: '192.0.2.11', cookie: `other=1; svc_link_session=${sessionId}` });
      expect(again.statusCode).toBe(303);
      expect(sessionIn(again.headers.location)).toBe(sessionId);
      expect(again.headers['set-cookie']).toBeUndefined();
    }
    expect(await sessionsOf(linkId)).toBe(1);
    // Reusing opens nothing, so it counts nothing.
    expect(await counted('link', linkId)).toBe(1);
    expect(await counted('link_ip', '192.0.2.11')).toBe(1);
  });

  it('opens a new session when the cookie names another link’s session, another country, an ended session or nothing valid', async () => {
    const linkId = await createLink();
    const otherLink = await createLink();
    const elsewhere = sessionIn((await pay(otherLink, { address: '192.0.2.12' })).headers.location);
    const own = sessionIn((await pay(linkId, { address: '192.0.2.12' })).headers.location);

    const fresh = async (cookie: string, country = 'US') => {
      const res = await pay(linkId, { address: '192.0.2.12', cookie, country });
      expect(res.statusCode, cookie).toBe(303);
      const id = sessionIn(res.headers.location);
      expect(id, cookie).not.toBe(own);
      expect(id, cookie).not.toBe(elsewhere);
      expect(String(res.headers['set-cookie'])).toContain(`svc_link_session=${id};`);
      return id;
    };
    await fresh(`svc_link_session=${elsewhere}`);
    await fresh('svc_link_session=not-a-session-id');
    await fresh(`svc_link_session=${own}`, 'GB');
    // The session's own expiry has passed (its workflow has not said so yet): it is not open any more.
    const ended = await fresh('svc_link_session=');
    await ctx.db.sql`update checkout_sessions set expires_at = now() - interval '1 second' where id = ${ended}`;
    await fresh(`svc_link_session=${ended}`);
    expect(await sessionsOf(linkId)).toBe(6);
  });
});

describe('new sessions per link and per client address', () => {
  it('answers 429 with Retry-After and a page once the client address reached its limit, counting in Postgres across processes', async () => {
    const linkId = await createLink();
    const address = '198.51.100.20';
    expect((await pay(linkId, { address })).statusCode).toBe(303);
    expect(await counted('link_ip', address)).toBe(1);
    expect(await counted('link', linkId)).toBe(1);

    await countedElsewhere('link_ip', address, MAX_LINK_SESSIONS_PER_ADDRESS - 2);
    const last = await pay(linkId, { address });
    expect(last.statusCode).toBe(303);
    const lastSession = sessionIn(last.headers.location);
    expect(await counted('link_ip', address)).toBe(MAX_LINK_SESSIONS_PER_ADDRESS);

    // Over the limit on this link and on any other: a clear page, nothing opened, nothing counted.
    const otherLink = await createLink();
    for (const id of [linkId, otherLink]) {
      const limited = await pay(id, { address });
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['content-type']).toContain('text/html');
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(LINK_SESSION_WINDOW_SECONDS);
      expect(limited.body).toContain('Too many payments were started here in a short time.');
    }
    expect(await sessionsOf(linkId)).toBe(2);
    expect(await sessionsOf(otherLink)).toBe(0);
    expect(await counted('link_ip', address)).toBe(MAX_LINK_SESSIONS_PER_ADDRESS);

    // The visitor's own open session is still reachable; another address is not limited.
    const back = await pay(linkId, { address, cookie: `svc_link_session=${lastSession}` });
    expect(back.statusCode).toBe(303);
    expect(sessionIn(back.headers.location)).toBe(lastSession);
    expect((await pay(otherLink, { address: '198.51.100.21' })).statusCode).toBe(303);

    // Once the counted sessions leave the window, the address may open sessions again.
    await ctx.db
      .sql`update auth_failures set occurred_at = occurred_at - make_interval(secs => ${LINK_SESSION_WINDOW_SECONDS + 1}) where dimension = 'link_ip' and subject = ${address}`;
    expect((await pay(otherLink, { address })).statusCode).toBe(303);
  });

  it('answers 429 for a link that reached its limit, whatever the address, and leaves other links alone', async () => {
    const linkId = await createLink();
    await countedElsewhere('link', linkId, MAX_SESSIONS_PER_LINK);
    for (const address of ['203.0.113.1', '203.0.113.2']) {
      const limited = await pay(linkId, { address });
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // A refusal counts nothing against the address.
      expect(await counted('link_ip', address)).toBe(0);
    }
    expect(await sessionsOf(linkId)).toBe(0);
    expect((await pay(await createLink(), { address: '203.0.113.1' })).statusCode).toBe(303);
  });
});
