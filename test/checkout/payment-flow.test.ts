import { describe, expect, it } from 'vitest';
import { parseCrypto } from '../../src/domain/money';
import { PaymentStatusKey } from '../../src/workflows/search-attributes';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';

// The whole flow over real sockets: merchant API → hosted page → sandbox provider (its own app and
// port) → signed callback → workflow on the dev server → Postgres → lookups.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });

async function openSession(apiKey: string, body: Record<string, unknown> = {}) {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', orderId: 'order-e2e', ...body },
  });
  expect(res.status).toBe(201);
  return res.json.checkoutSession as { id: string; checkoutUrl: string };
}

const lookup = (apiKey: string, path: string) =>
  http('GET', `${ctx.baseUrl}/api/v1/${path}`, { headers: { authorization: `Bearer ${apiKey}` } });

const waitForStatus = (apiKey: string, id: string, status: string) =>
  eventually(
    () => lookup(apiKey, `payment-sessions/${id}`).then((r) => r.json.paymentSession.status as string),
    (s) => s === status,
    20_000,
    `${id} to be ${status}`,
  );

const payInSandbox = (reference: string, outcome: 'succeeded' | 'declined') =>
  http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference, outcome } });

describe('a checkout paid end to end', () => {
  it('completes through the hosted page, the sandbox and its signed callbacks, with a split that adds up', async () => {
    const m = await createApprovedMerchant(ctx.app, { name: 'E2E Shop', commissionBps: 150 });
    const session = await openSession(m.apiKey, { successUrl: 'https://shop.example/thanks' });

    const page = await http('GET', session.checkoutUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('25.00');
    expect(page.text).toContain('E2E Shop');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    const paid = await payInSandbox(session.id, 'succeeded');
    expect(paid.status).toBe(200);

    await waitForStatus(m.apiKey, session.id, 'completed');
    const tx = (await lookup(m.apiKey, `transactions/${session.id}`)).json.transaction;
    expect(tx).toMatchObject({
      id: session.id,
      paymentSessionId: session.id,
      status: 'completed',
      sourceAmount: '25.00',
      sourceCurrency: 'USD',
      commissionBps: 150,
    });
    expect(tx.grossAmount).toMatch(/^\d+\.\d{6}$/);
    const gross = parseCrypto(tx.grossAmount);
    expect(parseCrypto(tx.merchantSettlementAmount) + parseCrypto(tx.platformCommissionAmount)).toBe(gross);
    // 1.5 % of 25.000000, rounded half up.
    expect(tx.platformCommissionAmount).toBe('0.375000');
    expect(tx.depositTransactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(tx.completedAt).not.toBeNull();
    // The transaction's hash and link become the merchant payout's once it is confirmed.
    const paidOut = await eventually(
      async () => (await lookup(m.apiKey, `transactions/${session.id}`)).json.transaction,
      (t) => t.transactionHash !== null,
      60_000,
      'the merchant payout to be confirmed',
    );
    expect(paidOut.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(paidOut.transactionHash).not.toBe(tx.depositTransactionHash);
    // On the dev chain the link is the sandbox's own transaction page, which exists.
    expect(paidOut.explorerUrl).toBe(`${ctx.config.providers.sandbox.publicUrl}/explorer/tx/${paidOut.transactionHash}`);
    const explorer = await http('GET', paidOut.explorerUrl);
    expect(explorer.status).toBe(200);
    expect(explorer.text).toContain(paidOut.transactionHash);

    const handle = ctx.temporal.workflow.getHandle(session.id);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect((await handle.describe()).typedSearchAttributes.get(PaymentStatusKey)).toBe('completed');

    const events = await ctx.db.sql`select type, state from provider_events where payment_id = ${session.id} order by received_at`;
    expect(events.map((e) => `${e.type}:${e.state}`)).toEqual(['payment.processing:signaled', 'payment.succeeded:signaled']);
    const rows = await ctx.db.sql`select count(*)::int as n from transactions where payment_id = ${session.id}`;
    expect(rows[0]!.n).toBe(1);

    const done = await http('GET', session.checkoutUrl);
    expect(done.text).toContain('Payment received');
    expect(done.text).toContain('https://shop.example/thanks');
    expect(done.text).not.toContain('id="pay-button"');
  });

  it('keeps a declined session open: the page says so, and the customer pays on the same session with a second attempt', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const session = await openSession(m.apiKey);
    expect((await payInSandbox(session.id, 'declined')).status).toBe(200);
    const declined = await eventually(
      () => http('GET', session.checkoutUrl).then((r) => r.text),
      (text) => text.includes('Payment declined'),
      20_000,
      'the decline on the page',
    );
    // No money was taken and nothing ended: Pay is offered again, and the wallet.
    expect(declined).toContain('id="pay-button">Try again</button>');
    expect(declined).toContain('id="wallet-button"');
    expect((await lookup(m.apiKey, `payment-sessions/${session.id}`)).json.paymentSession.status).toBe('pending');
    const start = await http('POST', `${ctx.baseUrl}/pay/${session.id}/start`);
    expect(start.status).toBe(303);
    const retried = await http('GET', start.headers.get('location')!);
    expect(retried.text).toContain('/confirm');

    expect((await payInSandbox(session.id, 'succeeded')).status).toBe(200);
    await waitForStatus(m.apiKey, session.id, 'completed');
    const tx = (await lookup(m.apiKey, `transactions/${session.id}`)).json.transaction;
    expect(tx).toMatchObject({ status: 'completed', failureReason: null });
    // The merchant heard of the payment, never of a failure.
    const events = (await ctx.db.sql`select type from events where payment_id = ${session.id}`).map((e) => e.type as string);
    expect(events).toContain('payment.completed');
    expect(events).not.toContain('payment.failed');
  });

  it('cancels from the hosted page, back to the cancel URL, and cannot be paid afterwards', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const session = await openSession(m.apiKey, { cancelUrl: 'https://shop.example/cart' });
    const res = await http('POST', `${ctx.baseUrl}/pay/${session.id}/cancel`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://shop.example/cart');
    expect((await lookup(m.apiKey, `payment-sessions/${session.id}`)).json.paymentSession.status).toBe('canceled');
    const start = await http('POST', `${ctx.baseUrl}/pay/${session.id}/start`);
    expect(start.status).toBe(409);
    expect((await payInSandbox(session.id, 'succeeded')).status).toBeGreaterThanOrEqual(400);
    expect((await ctx.temporal.workflow.getHandle(session.id).result()).status).toBe('canceled');
  });

  it('refuses a form post from another origin', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const session = await openSession(m.apiKey);
    for (const origin of ['https://evil.example', 'null']) {
      const res = await http('POST', `${ctx.baseUrl}/pay/${session.id}/cancel`, { headers: { origin } });
      expect(res.status).toBe(403);
    }
    expect((await lookup(m.apiKey, `payment-sessions/${session.id}`)).json.paymentSession.status).toBe('pending');
  });

  it('pays many sessions at once, each exactly once', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const sessions = await Promise.all(
      Array.from({ length: 12 }, (_, i) => openSession(m.apiKey, { amount: 10 + i, orderId: `bulk-${i}` })),
    );
    const results = await Promise.all(sessions.map((s, i) => payInSandbox(s.id, i % 4 === 3 ? 'declined' : 'succeeded')));
    for (const r of results) expect(r.status).toBe(200);
    for (const [i, s] of sessions.entries()) if (i % 4 !== 3) await waitForStatus(m.apiKey, s.id, 'completed');
    const [counts] = await ctx.db.sql`
      select count(*)::int as n, count(distinct payment_id)::int as distinct_payments,
             count(*) filter (where status = 'completed')::int as completed
      from transactions where merchant_id = ${m.id}`;
    expect(counts).toEqual({ n: 9, distinct_payments: 9, completed: 9 });
    // The declined ones are open still, for another attempt.
    for (const [i, s] of sessions.entries())
      if (i % 4 === 3) expect((await lookup(m.apiKey, `payment-sessions/${s.id}`)).json.paymentSession.status).toBe('pending');
  });
});
