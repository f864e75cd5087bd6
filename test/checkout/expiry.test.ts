import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// Sessions that live 3 seconds, so expiry is observed in real time on the dev server.
const ctx = useTestApp({ SESSION_TTL_SECONDS: '3' }, { worker: true });

async function openSession() {
  const m = await createApprovedMerchant(ctx.app);
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US' },
  });
  const id = res.json().checkoutSession.id as string;
  // The provider delivers to the session's deposit address, so its callbacks name that wallet.
  const [{ deposit_address: walletAddress }] = (await ctx.db
    .sql`select deposit_address from checkout_sessions where id = ${id}`) as unknown as [{ deposit_address: string }];
  return { id, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress };
}

const row = async (id: string) => (await ctx.db.sql`select status, review_flag, review_note from checkout_sessions where id = ${id}`)[0]!;
const waitFor = (id: string, wanted: string) =>
  eventually(
    () => row(id).then((r) => r.status as string),
    (s) => s === wanted,
    15_000,
    `${id} ${wanted}`,
  );

describe('session expiry', () => {
  it('expires a pending session at expiresAt, and its page can no longer be paid', async () => {
    const s = await openSession();
    await waitFor(s.id, 'expired');
    expect((await ctx.temporal.workflow.getHandle(s.id).result()).status).toBe('expired');
    const start = await ctx.app.inject({ method: 'POST', url: `/pay/${s.id}/start` });
    expect(start.statusCode).toBe(409);
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${s.id}` });
    expect(page.body).toContain('Checkout expired');
  });

  it('expires a session stuck in processing', async () => {
    const s = await openSession();
    await postCallback(ctx.app, sandboxEvent(s, 'payment.processing'), { secret: ctx.config.providers.sandbox.callbackSecret });
    await waitFor(s.id, 'processing');
    await waitFor(s.id, 'expired');
  });

  it('records a success that arrives after expiry, with no transfer seen, as an unverified exception, without completing the session', async () => {
    const s = await openSession();
    await waitFor(s.id, 'expired');
    await ctx.temporal.workflow.getHandle(s.id).result();
    const late = sandboxEvent(s, 'payment.succeeded');
    const res = await postCallback(ctx.app, late, { secret: ctx.config.providers.sandbox.callbackSecret });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, late: true });
    expect((await row(s.id)).status).toBe('expired');
    const exceptions = await ctx.db.sql`select kind, status, "references" from payment_exceptions where payment_id = ${s.id}`;
    expect(exceptions).toHaveLength(1);
    // Only the chain proves money: the provider's word is a claim until its transfer's
    // log takes the record over as late (test/proof/money-rules.property.test.ts).
    expect(exceptions[0]).toMatchObject({
      kind: 'unverified',
      status: 'open',
      references: { providerEventId: late.id, paymentStatus: 'expired' },
    });
    // The same callback again (a provider's retry) records nothing more.
    await postCallback(ctx.app, late, { secret: ctx.config.providers.sandbox.callbackSecret });
    expect(await ctx.db.sql`select id from payment_exceptions where payment_id = ${s.id}`).toHaveLength(1);
    const [event] = await ctx.db.sql`select state from provider_events where event_id = ${late.id}`;
    expect(event!.state).toBe('late');
    expect((await ctx.db.sql`select count(*)::int as n from transactions where payment_id = ${s.id}`)[0]!.n).toBe(0);
  });
});
