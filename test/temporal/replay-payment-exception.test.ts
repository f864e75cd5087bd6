import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import { replayRuns } from './histories';

// Runs of the paymentException workflow: one accepted by an operator (an update), one still open.
const ctx = useTestApp({ SESSION_TTL_SECONDS: '2' }, { sandbox: true, worker: true });

describe('paymentException histories', () => {
  it('replays the current code’s own runs: accepted, open', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    const id = res.json().checkoutSession.id as string;
    const [{ deposit_address: walletAddress }] = (await ctx.db.sql`select deposit_address from checkout_sessions where id = ${id}`) as unknown as [{ deposit_address: string }];
    const session = { id, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress };
    expect((await ctx.temporal.workflow.getHandle(id).result()) as { status: string }).toMatchObject({ status: 'expired' });
    const secret = ctx.config.providers.sandbox.callbackSecret;
    // Two late successes of two transfers: two arrivals, two exceptions, each with its own run.
    for (let i = 0; i < 2; i++) expect((await postCallback(ctx.app, sandboxEvent(session, 'payment.succeeded'), { secret })).statusCode).toBe(200);
    const rows = await eventually(() => ctx.db.sql`select id from payment_exceptions where payment_id = ${id} order by created_at`, (r) => r.length === 2, 10_000, 'two exceptions');
    const [accepted, open] = rows.map((r) => r.id as string) as [string, string];
    const answer = await ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${accepted}/accept`, headers: adminHeaders });
    expect(answer.statusCode).toBe(200);
    expect(await ctx.temporal.workflow.getHandle(accepted).result()).toBe('accepted');
    await eventually(() => ctx.db.sql`select count(*)::int as n from events where payment_id = ${id} and type = 'payment.exception'`.then((r) => r[0]!.n as number), (n) => n === 2, 10_000, 'events');
    await replayRuns(ctx.temporal, 'payment-exception', { accepted, open });
  }, 60_000);
});
