import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { postCallback, sandboxEvent, type CallbackSession } from '../support/sandbox-callbacks';

// Callbacks are posted as the sandbox would post them, to prove what the service accepts and what
// it refuses. The workflow runs on the dev server through an in-process worker. The sessions settle
// on solana, a network without a chain verifier, where the provider's word still completes a payment
// (decisions §11); on verified networks a success is only a hint (test/proof).
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
  eventually(() => status(id).then((s) => s.status as string), (s) => s === wanted, 15_000, `${id} ${wanted}`);
const txCount = async (id: string) => (await ctx.db.sql`select count(*)::int as n from transactions where payment_id = ${id}`)[0]!.n;

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
    await new Promise((r) => setTimeout(r, 300));
    expect((await status(s.id)).status).toBe('pending');
    expect(await txCount(s.id)).toBe(0);
    expect((await ctx.db.sql`select count(*)::int as n from provider_events where payment_id = ${s.id}`)[0]!.n).toBe(0);
  });

  it('refuses a callback whose amount, currency or wallet differs from the session, and records each such success as an unverified exception', async () => {
    const s = await openSession();
    for (const overrides of [{ sourceAmount: '2.50' }, { sourceCurrency: 'EUR' }, { walletAddress: '0x000000000000000000000000000000000000dEaD' }]) {
      const res = await postCallback(ctx.app, sandboxEvent(s, 'payment.succeeded', overrides), { secret: secret() });
      expect(res.statusCode).toBe(422);
    }
    expect((await status(s.id)).status).toBe('pending');
    const exceptions = await ctx.db.sql`select kind, status, "references"->>'mismatch' as mismatch from payment_exceptions where payment_id = ${s.id}`;
    expect(exceptions).toHaveLength(3);
    expect(exceptions.every((e) => e.kind === 'unverified' && e.status === 'open' && typeof e.mismatch === 'string')).toBe(true);
    expect(await txCount(s.id)).toBe(0);
  });

  it('answers 404 for a payment it does not know', async () => {
    const res = await postCallback(
      ctx.app,
      sandboxEvent({ id: 'SV_unknown00000000000000000', amount: '1.00', currency: 'USD', destinationAsset: 'USDC', network: 'solana', walletAddress: WALLET }, 'payment.processing'),
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

  it('ignores out-of-order facts after a terminal state', async () => {
    const s = await openSession();
    expect((await postCallback(ctx.app, sandboxEvent(s, 'payment.succeeded'), { secret: secret() })).statusCode).toBe(200);
    await waitFor(s.id, 'completed');
    // A processing and a failure arrive late (a different event each): nothing moves.
    for (const type of ['payment.processing', 'payment.failed'] as const) {
      expect((await postCallback(ctx.app, sandboxEvent(s, type), { secret: secret() })).statusCode).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(await status(s.id)).toMatchObject({ status: 'completed', review_flag: null });
    const [tx] = await ctx.db.sql`select status from transactions where payment_id = ${s.id}`;
    expect(tx!.status).toBe('completed');
  });

  it('completes from pending when success arrives without a processing step', async () => {
    const s = await openSession();
    await postCallback(ctx.app, sandboxEvent(s, 'payment.succeeded'), { secret: secret() });
    await waitFor(s.id, 'completed');
    const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/transactions/${s.id}`, headers: { authorization: `Bearer ${s.apiKey}` } });
    expect(res.json().transaction).toMatchObject({ grossAmount: '24.500000', platformCommissionAmount: '0.245000', merchantSettlementAmount: '24.255000' });
  });
});
