import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { runsAtRest } from '../support/at-rest';
import { eventually } from '../support/http';
import { postCallback, sandboxEvent, type CallbackSession } from '../support/sandbox-callbacks';

// Callbacks are posted as the sandbox would post them, to prove what the service accepts and what
// it refuses. The workflow runs on the dev server through an in-process worker. The sessions settle
// on solana, a network without a chain verifier, where the provider's word still completes a payment;
// on verified networks a success is only a hint (test/proof).
const ctx = useTestApp({}, { worker: true });
const WALLET = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';

async function openSession(): Promise<CallbackSession & { apiKey: string }> {
  const m = await createApprovedMerchant(ctx.app, { wallets: [{ asset: 'USDC', network: 'solana', address: WALLET }] });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US', network: 'solana' },
  });
  expect(res.statusCode).toBe(201);
  const id = res.json().checkoutSession.id as string;
  return { id, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'solana', walletAddress: WALLET, apiKey: m.apiKey };
}

const secret = () => ctx.config.providers.sandbox.callbackSecret;
const status = async (id: string) => (await ctx.db.sql`select status, review_flag from checkout_sessions where id = ${id}`)[0]!;
const waitFor = (id: string, wanted: string) =>
  eventually(
    () => status(id).then((s) => s.status as string),
    (s) => s === wanted,
    15_000,
    `${id} ${wanted}`,
  );
const txCount = async (id: string) => (await ctx.db.sql`select count(*)::int as n from transactions where payment_id = ${id}`)[0]!.n;
const rowsOf = async (table: 'provider_events' | 'payment_exceptions' | 'events', id: string) =>
  (await ctx.db.sql`select count(*)::int as n from ${ctx.db.sql(table)} where payment_id = ${id}`)[0]!.n as number;
/** Signals the session's run has received (the provider facts the API handed it). */
const signalsOf = async (id: string) =>
  ((await ctx.temporal.workflow.getHandle(id).fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes)
    .length;

/** A refused callback changed nothing: no provider event, no exception, no transaction; for an open session no signal and no event. */
async function expectUntouched(id: string, wanted: string) {
  expect((await status(id)).status).toBe(wanted);
  expect(await rowsOf('provider_events', id)).toBe(0);
  expect(await rowsOf('payment_exceptions', id)).toBe(0);
  expect(await txCount(id)).toBe(0);
  if (wanted === 'pending') {
    expect(await signalsOf(id)).toBe(0);
    expect(await rowsOf('events', id)).toBe(0);
  }
}

describe('provider callbacks', () => {
  it.each([
    ['a wrong secret', { secret: 'not-the-sandbox-secret-at-all' }],
    ['a stale timestamp', { timestamp: Math.floor(Date.now() / 1000) - 600 }],
    ['a timestamp from the future', { timestamp: Math.floor(Date.now() / 1000) + 600 }],
    ['no signature header', { header: null }],
    ['a malformed header', { header: 'v1=abc' }],
    ['a tampered body', { tamper: (raw: string) => raw.replace('"24.500000"', '"99.500000"') }],
  ])('refuses %s with 401 and changes nothing', async (_name, options) => {
    const s = await openSession();
    const res = await postCallback(ctx.app, sandboxEvent(s, 'payment.succeeded'), { secret: secret(), ...options });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('Unauthorized');
    // Whatever the API handed the run before answering, the run has done with it.
    await runsAtRest(ctx.temporal, [s.id]);
    expect((await status(s.id)).status).toBe('pending');
    expect(await txCount(s.id)).toBe(0);
    expect((await ctx.db.sql`select count(*)::int as n from provider_events where payment_id = ${s.id}`)[0]!.n).toBe(0);
  });

  it.each([
    ['amount', { sourceAmount: '2.50' }],
    ['currency', { sourceCurrency: 'EUR' }],
    ['wallet', { walletAddress: '0x000000000000000000000000000000000000dEaD' }],
    ['destination amount (negative)', { destinationAmount: '-24.750000' }],
    ['destination amount (zero)', { destinationAmount: '0.000000' }],
    ['destination amount (missing)', { destinationAmount: undefined }],
  ])('refuses a success whose %s does not fit the session with 422, and records nothing and signals nothing', async (_name, overrides) => {
    const s = await openSession();
    const res = await postCallback(ctx.app, sandboxEvent(s, 'payment.succeeded', overrides), { secret: secret() });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      ok: false,
      error: 'ValidationError',
      message: expect.stringContaining('does not match the payment'),
    });
    await expectUntouched(s.id, 'pending');
  });

  it('refuses a mismatched success for a session that has ended before the late-money path records anything', async () => {
    const s = await openSession();
    expect((await ctx.app.inject({ method: 'POST', url: `/pay/${s.id}/cancel` })).statusCode).toBe(303);
    await eventually(
      () =>
        ctx.temporal.workflow
          .getHandle(s.id)
          .describe()
          .then((d) => d.status.name),
      (st) => st !== 'RUNNING',
      15_000,
      'the run closed',
    );
    for (const overrides of [{ destinationAmount: '-24.750000' }, { sourceAmount: '2.50' }]) {
      expect((await postCallback(ctx.app, sandboxEvent(s, 'payment.succeeded', overrides), { secret: secret() })).statusCode).toBe(422);
    }
    await expectUntouched(s.id, 'canceled');
  });

  it('answers 404 for a payment it does not know', async () => {
    const res = await postCallback(
      ctx.app,
      sandboxEvent(
        {
          id: 'SV_unknown00000000000000000',
          amount: '1.00',
          currency: 'USD',
          destinationAsset: 'USDC',
          network: 'solana',
          walletAddress: WALLET,
        },
        'payment.processing',
      ),
      { secret: secret() },
    );
    expect(res.statusCode).toBe(404);
  });

  it('applies duplicated and concurrent deliveries of one event once', async () => {
    const s = await openSession();
    const success = sandboxEvent(s, 'payment.succeeded');
    const results = await Promise.all(Array.from({ length: 8 }, () => postCallback(ctx.app, success, { secret: secret() })));
    for (const r of results) expect(r.statusCode).toBe(200);
    await waitFor(s.id, 'completed');
    const again = await postCallback(ctx.app, success, { secret: secret() });
    expect(again.json()).toMatchObject({ ok: true, duplicate: true });
    expect(await txCount(s.id)).toBe(1);
    expect((await ctx.db.sql`select count(*)::int as n from provider_events where payment_id = ${s.id}`)[0]!.n).toBe(1);
  });

  it('signals an event an earlier delivery recorded but did not hand over, and answers a repeat as a duplicate', async () => {
    const s = await openSession();
    const processing = sandboxEvent(s, 'payment.processing');
    // An earlier delivery stopped after recording the event, before its signal.
    await ctx.db.sql`insert into provider_events (provider, event_id, payment_id, type, payload, state)
      values ('sandbox', ${processing.id}, ${s.id}, 'payment.processing', ${JSON.stringify(processing)}::jsonb, 'received')`;
    const retried = await postCallback(ctx.app, processing, { secret: secret() });
    expect(retried.json()).toEqual({ ok: true });
    await waitFor(s.id, 'processing');
    const again = await postCallback(ctx.app, processing, { secret: secret() });
    expect(again.json()).toMatchObject({ ok: true, duplicate: true });
    const rows = await ctx.db.sql`select state from provider_events where payment_id = ${s.id}`;
    expect(rows.map((r) => r.state)).toEqual(['signaled']);
    // The repeat reached the run too, which applied the fact once.
    await runsAtRest(ctx.temporal, [s.id]);
    expect(await signalsOf(s.id)).toBe(2);
    expect(await ctx.db.sql`select type from events where payment_id = ${s.id}`).toEqual([{ type: 'payment.processing' }]);
  });

  it('ignores out-of-order facts after a terminal state', async () => {
    const s = await openSession();
    expect((await postCallback(ctx.app, sandboxEvent(s, 'payment.succeeded'), { secret: secret() })).statusCode).toBe(200);
    await waitFor(s.id, 'completed');
    // A processing and a failure arrive late (a different event each): nothing moves.
    for (const type of ['payment.processing', 'payment.failed'] as const) {
      expect((await postCallback(ctx.app, sandboxEvent(s, type), { secret: secret() })).statusCode).toBe(200);
    }
    await runsAtRest(ctx.temporal, [s.id]);
    expect(await status(s.id)).toMatchObject({ status: 'completed', review_flag: null });
    const [tx] = await ctx.db.sql`select status from transactions where payment_id = ${s.id}`;
    expect(tx!.status).toBe('completed');
  });

  it('completes from pending when success arrives without a processing step', async () => {
    const s = await openSession();
    await postCallback(ctx.app, sandboxEvent(s, 'payment.succeeded'), { secret: secret() });
    await waitFor(s.id, 'completed');
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/transactions/${s.id}`,
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    expect(res.json().transaction).toMatchObject({
      grossAmount: '24.500000',
      platformCommissionAmount: '0.245000',
      merchantSettlementAmount: '24.255000',
    });
  });
});
