import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';

// An Idempotency-Key binds to the whole request, its method, its path with
// the ids in it, and its body. Reused on another path or id it is refused (422
// IdempotencyKeyReused) and changes nothing, rather than answering with another resource's reply.
const ctx = useTestApp({}, { worker: true });

type Merchant = Awaited<ReturnType<typeof createApprovedMerchant>>;

async function openSession(m: Merchant): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().checkoutSession.id as string;
}

const post = (m: Merchant, url: string, key: string, payload?: Record<string, unknown>) => {
  const headers = { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': key };
  return payload === undefined
    ? ctx.app.inject({ method: 'POST', url, headers })
    : ctx.app.inject({ method: 'POST', url, headers, payload });
};
const expire = (m: Merchant, id: string, key: string) => post(m, `/api/v1/checkout/sessions/${id}/expire`, key);
const statusOf = async (id: string) => (await ctx.db.sql`select status from checkout_sessions where id = ${id}`)[0]!.status as string;
const eventsOf = async (id: string) => (await ctx.db.sql`select type from events where payment_id = ${id}`).map((r) => r.type as string);
const count = async (table: 'checkout_sessions' | 'payment_links', merchantId: string) =>
  (await ctx.db.sql`select count(*)::int as n from ${ctx.db.sql(table)} where merchant_id = ${merchantId}`)[0]!.n as number;

function expectReused(res: Awaited<ReturnType<typeof post>>) {
  expect(res.statusCode, res.body).toBe(422);
  expect(res.headers['idempotent-replayed']).toBeUndefined();
  expect(res.json()).toEqual({
    ok: false,
    error: 'IdempotencyKeyReused',
    message: expect.stringContaining('Idempotency-Key'),
    requestId: res.headers['x-request-id'],
  });
}

describe('an Idempotency-Key binds to the method, the path with its ids, and the body', () => {
  it('refuses the key of one session’s expiry on another session with 422 IdempotencyKeyReused, and leaves that session pending', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const [a, b] = [await openSession(m), await openSession(m)];
    const first = await expire(m, a, 'expire-once');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().checkoutSession).toMatchObject({ id: a, status: 'expired' });

    expectReused(await expire(m, b, 'expire-once'));
    // Nothing reached B's workflow: still pending, no payment.expired.
    expect((await ctx.temporal.workflow.getHandle(b).describe()).status.name).toBe('RUNNING');
    expect(await statusOf(b)).toBe('pending');
    expect(await eventsOf(b)).toEqual([]);
    // The key still answers for A, and B can be expired with a key of its own.
    const replay = await expire(m, a, 'expire-once');
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    const own = await expire(m, b, 'expire-b');
    expect(own.statusCode).toBe(200);
    expect(own.json().checkoutSession).toMatchObject({ id: b, status: 'expired' });
  });

  it('treats a percent-encoded id as the same path', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await openSession(m);
    const first = await expire(m, id, 'encoded');
    expect(first.statusCode).toBe(200);
    const again = await post(m, `/api/v1/checkout/sessions/${id.replace('_', '%5F')}/expire`, 'encoded');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('refuses a key of one route on another route, whatever the body, and creates nothing there', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const body = { amount: 25, currency: 'USD' };
    const created = await post(m, '/api/v1/checkout/sessions', 'one-key', { ...body, countryCode: 'US' });
    expect(created.statusCode).toBe(201);

    expectReused(await post(m, '/api/v1/payment-links', 'one-key', body));
    expect(await count('payment_links', m.id)).toBe(0);
    // Nor does the other route's reply change: the first request still replays.
    const replay = await post(m, '/api/v1/checkout/sessions', 'one-key', { ...body, countryCode: 'US' });
    expect(replay.statusCode).toBe(201);
    expect(replay.json()).toEqual(created.json());
    expect(await count('checkout_sessions', m.id)).toBe(1);
  });

  it('answers the twin of a request still running 409 Conflict with Retry-After, so a retrying client comes back', async () => {
    const m = await createApprovedMerchant(ctx.app);
    // The first request's claim, as it stands while that request runs: same route, same body.
    const hash = createHash('sha256')
      .update('POST /api/v1/checkout/sessions\n{"amount":25,"countryCode":"US","currency":"USD"}')
      .digest('hex');
    await ctx.db.sql`insert into idempotency_keys (merchant_id, key, route, request_hash, state, expires_at)
      values (${m.id}, 'running', 'POST /api/v1/checkout/sessions', ${hash}, 'in_progress', now() + interval '24 hours')`;
    const twin = await post(m, '/api/v1/checkout/sessions', 'running', { amount: 25, currency: 'USD', countryCode: 'US' });
    expect(twin.statusCode, twin.body).toBe(409);
    expect(twin.json()).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('still being processed') });
    expect(twin.headers['retry-after']).toBe('1');
    expect(await count('checkout_sessions', m.id)).toBe(0);
  });

  it('keeps 409 IdempotencyConflict for the same path with another body, and creates nothing', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const first = await post(m, '/api/v1/checkout/sessions', 'same-path', { amount: 25, currency: 'USD', countryCode: 'US' });
    expect(first.statusCode).toBe(201);
    const conflict = await post(m, '/api/v1/checkout/sessions', 'same-path', { amount: 26, currency: 'USD', countryCode: 'US' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({
      ok: false,
      error: 'IdempotencyConflict',
      message: expect.any(String),
      requestId: conflict.headers['x-request-id'],
    });
    expect(await count('checkout_sessions', m.id)).toBe(1);
  });

  it('keeps keys apart between merchants', async () => {
    const [m1, m2] = [await createApprovedMerchant(ctx.app), await createApprovedMerchant(ctx.app)];
    const [s1, s2] = [await openSession(m1), await openSession(m2)];
    expect((await expire(m1, s1, 'shared-key')).statusCode).toBe(200);
    const other = await expire(m2, s2, 'shared-key');
    expect(other.statusCode).toBe(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.json().checkoutSession).toMatchObject({ id: s2, status: 'expired' });
  });

  it('lists IdempotencyKeyReused among the error codes of the OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.components.schemas.Error.properties.error.enum).toContain('IdempotencyKeyReused');
    const expireOp = doc.paths['/api/v1/checkout/sessions/{id}/expire'].post;
    expect(expireOp.responses['422'].description).toContain('Idempotency-Key');
  });
});
