import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// POST /api/v1/checkout/sessions/{id}/expire, as Stripe's: a pending session ends now through its
// workflow, which sends payment.expired; anything else that has moved on is a 409.
const ctx = useTestApp({}, { worker: true });

async function openSession(apiKey?: string) {
  const m = apiKey ? { apiKey } : await createApprovedMerchant(ctx.app);
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US' },
  });
  expect(res.statusCode).toBe(201);
  const id = res.json().checkoutSession.id as string;
  const [{ deposit_address: walletAddress }] = (await ctx.db
    .sql`select deposit_address from checkout_sessions where id = ${id}`) as unknown as [{ deposit_address: string }];
  return { id, apiKey: m.apiKey, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress };
}

const expire = (id: string, apiKey: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/v1/checkout/sessions/${id}/expire`,
    headers: { authorization: `Bearer ${apiKey}`, ...headers },
  });
const statusOf = async (id: string) => (await ctx.db.sql`select status from checkout_sessions where id = ${id}`)[0]!.status as string;
const eventsOf = async (id: string) =>
  (await ctx.db.sql`select type from events where payment_id = ${id} order by created_at`).map((r) => r.type as string);

describe('expiring a checkout session on demand', () => {
  it('ends a pending session now through its workflow, sends payment.expired once, and answers the same when repeated', async () => {
    const s = await openSession();
    const res = await expire(s.id, s.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, checkoutSession: { id: s.id, status: 'expired' } });
    expect(await statusOf(s.id)).toBe('expired');
    expect((await ctx.temporal.workflow.getHandle(s.id).result()).status).toBe('expired');
    expect(await eventsOf(s.id)).toEqual(['payment.expired']);

    const again = await expire(s.id, s.apiKey);
    expect(again.statusCode).toBe(200);
    expect(again.json().checkoutSession.status).toBe('expired');
    expect(await eventsOf(s.id)).toEqual(['payment.expired']);

    const pay = await ctx.app.inject({ method: 'POST', url: `/pay/${s.id}/start` });
    expect(pay.statusCode).toBe(409);
  });

  it('replays the first answer for the same Idempotency-Key', async () => {
    const s = await openSession();
    const first = await expire(s.id, s.apiKey, { 'idempotency-key': `exp-${s.id}` });
    const second = await expire(s.id, s.apiKey, { 'idempotency-key': `exp-${s.id}` });
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
  });

  it('answers 409 Conflict for a session that is processing, and changes nothing', async () => {
    const s = await openSession();
    await postCallback(ctx.app, sandboxEvent(s, 'payment.processing'), { secret: ctx.config.providers.sandbox.callbackSecret });
    await eventually(
      () => statusOf(s.id),
      (st) => st === 'processing',
      15_000,
      'processing',
    );
    const res = await expire(s.id, s.apiKey);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ ok: false, error: 'Conflict' });
    expect(res.json().message).toContain('processing');
    expect(await statusOf(s.id)).toBe('processing');
    expect(await eventsOf(s.id)).not.toContain('payment.expired');
  });

  it('answers 409 Conflict for a canceled session', async () => {
    const s = await openSession();
    expect((await ctx.app.inject({ method: 'POST', url: `/pay/${s.id}/cancel` })).statusCode).toBe(303);
    const res = await expire(s.id, s.apiKey);
    expect(res.statusCode).toBe(409);
    expect(await statusOf(s.id)).toBe('canceled');
  });

  it('answers 404 for another merchant’s session and leaves it pending', async () => {
    const s = await openSession();
    const other = await createApprovedMerchant(ctx.app);
    const res = await expire(s.id, other.apiKey);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('NotFound');
    expect(await statusOf(s.id)).toBe('pending');
    expect((await expire('SV_doesNotExist000000000000', s.apiKey)).statusCode).toBe(404);
  });

  it('needs the checkout_sessions:create scope and a key', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const s = await openSession(m.apiKey);
    const reader = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['transactions:read'] },
    });
    const res = await expire(s.id, reader.json().apiKey as string);
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('InsufficientScope');
    expect((await ctx.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${s.id}/expire` })).statusCode).toBe(401);
    expect(await statusOf(s.id)).toBe('pending');
  });
});
