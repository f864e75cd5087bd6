import { afterAll, describe, expect, it } from 'vitest';
import { parseCrypto } from '../../src/domain/money';
import { PaymentStatusKey } from '../../src/workflows/search-attributes';
import { sharedChain } from '../support/chain';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';
import { exceptionsOf, payFromWallet, sessionRow, waitForStatus } from '../proof/support';
import { openLinkTab } from './support';

// A link paid once, end to end over real sockets with the sandbox provider and the worker:
// two tabs of one link after one has paid, and Pay and the deposit instructions of a suspended
// merchant's open session.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();
const receiverReady = startReceiver();
afterAll(async () => (await receiverReady).close());

const sandbox = () => ctx.config.providers.sandbox.url;
const sandboxPay = (reference: string) => http('POST', `${sandbox()}/test-helpers/pay`, { body: { reference, outcome: 'succeeded' } });
const sandboxPayment = async (reference: string) => (await http('GET', `${sandbox()}/test-helpers/payments/${reference}`)).json?.payment;

/** An approved merchant whose webhooks go to this file's receiver, and a payment link of 30 USD. */
async function merchantWithLink() {
  const m = await createApprovedMerchant(ctx.app, { name: 'Paid Once' });
  const receiver = await receiverReady;
  const endpoint = await http('POST', `${ctx.baseUrl}/admin/v1/merchants/${m.id}/webhook-endpoints`, {
    headers: adminHeaders,
    body: { url: `${receiver.url}/${m.id}` },
  });
  expect(endpoint.status).toBe(201);
  const res = await http('POST', `${ctx.baseUrl}/api/v1/payment-links`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 30, currency: 'USD' },
  });
  expect(res.status).toBe(201);
  return { merchant: m, linkId: res.json.paymentLink.id as string };
}

const tab = (linkId: string) => openLinkTab(ctx.baseUrl, linkId);

const deliveredTo = async (merchantId: string) =>
  (await receiverReady).received.filter((d) => d.path === `/${merchantId}`).map((d) => d.body);

describe('a payment link is paid once', () => {
  it('ends the second tab once the first paid by card: Pay answers the paid page, the deposit 409, the sandbox refuses, canceled with reason link_paid and announced', async () => {
    const { merchant, linkId } = await merchantWithLink();
    const first = await tab(linkId);
    const second = await tab(linkId);

    // Tab 1 pays by card through the sandbox: Pay on the hosted page, the provider's page, the transfer.
    expect((await sandboxPay(first)).status).toBe(200);
    await eventually(
      () => sessionRow(ctx, first).then((r) => r.status),
      (s) => s === 'completed',
      30_000,
      'tab 1 completed',
    );
    // Tab 2's session is ended by the payment, not left open until it expires.
    await eventually(
      () => sessionRow(ctx, second).then((r) => r.status),
      (s) => s === 'canceled',
      20_000,
      'tab 2 canceled',
    );

    const page = await http('GET', `${ctx.baseUrl}/pay/${second}`);
    expect(page.text).toContain('Already paid');
    expect(page.text).not.toContain('id="pay-button"');
    const pay = await http('POST', `${ctx.baseUrl}/pay/${second}/start`);
    expect(pay.status).toBe(409);
    expect(pay.text).toContain('Already paid');
    expect(pay.text).toContain('has already been paid in another tab or window');
    const deposit = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${second}/deposit`);
    expect(deposit.status).toBe(409);
    expect(deposit.json).toMatchObject({ ok: false, error: 'Conflict' });
    // The sandbox's customer cannot pay it either: its Pay is refused, so no provider payment exists.
    const card = await sandboxPay(second);
    expect(card.status).toBe(409);
    expect(card.json).toMatchObject({ error: 'service_refused', serviceStatus: 409 });
    expect(await sandboxPayment(second)).toBeUndefined();

    const lookup = await http('GET', `${ctx.baseUrl}/api/v1/payment-sessions/${second}`, {
      headers: { authorization: `Bearer ${merchant.apiKey}` },
    });
    expect(lookup.json.paymentSession).toMatchObject({ status: 'canceled', cancelReason: 'link_paid' });
    const paid = await http('GET', `${ctx.baseUrl}/api/v1/payment-sessions/${first}`, {
      headers: { authorization: `Bearer ${merchant.apiKey}` },
    });
    expect(paid.json.paymentSession).toMatchObject({ status: 'completed', cancelReason: null });
    const events = await eventually(
      () => deliveredTo(merchant.id),
      (b) => b.some((e) => e.event === 'payment.canceled') && b.some((e) => e.event === 'payment.completed'),
      20_000,
      'payment.canceled and payment.completed delivered',
    );
    expect(events.filter((e) => e.event === 'payment.canceled').map((e) => e.sessionId)).toEqual([second]);
    expect(events.filter((e) => e.event === 'payment.completed').map((e) => e.sessionId)).toEqual([first]);
    // The link's run follows its status in its PaymentStatus search attribute (active at the start).
    await eventually(
      async () => (await ctx.temporal.workflow.getHandle(linkId).describe()).typedSearchAttributes.get(PaymentStatusKey),
      (status) => status === 'paid',
      10_000,
      'the link run marked paid',
    );
  }, 90_000);

  it('closes the provider payment of a tab that had pressed Pay, so the sandbox refuses it once the link is paid by money accepted late', async () => {
    const { merchant, linkId } = await merchantWithLink();
    // Tab 1 took the deposit instructions, its session expired, and its wallet paid late: an open exception.
    const first = await tab(linkId);
    const deposit = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${first}/deposit`);
    expect(deposit.status).toBe(200);
    const expired = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${first}/expire`, {
      headers: { authorization: `Bearer ${merchant.apiKey}` },
    });
    expect(expired.status).toBe(200);
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.json.deposit.address, parseCrypto(deposit.json.deposit.amount));
    const [late] = await eventually(
      () => exceptionsOf(ctx, first),
      (rows) => rows.length > 0,
      20_000,
      'the late exception',
    );
    // Tab 2 (the link was free again once tab 1 ended) presses Pay and leaves the provider's page open, unpaid.
    const second = await tab(linkId);
    expect((await http('POST', `${ctx.baseUrl}/pay/${second}/start`)).status).toBe(303);
    expect((await sandboxPayment(second)).status).toBe('requires_action');

    // The operator accepts tab 1's money: it pays the link, and tab 2 ends with its provider payment closed.
    expect((await http('POST', `${ctx.baseUrl}/admin/v1/exceptions/${late!.id}/accept`, { headers: adminHeaders })).status).toBe(200);
    await waitForStatus(ctx, second, 'canceled');
    await eventually(
      () => sandboxPayment(second).then((p) => p.status as string),
      (s) => s === 'canceled',
      20_000,
      'tab 2 provider payment closed',
    );
    const refused = await sandboxPay(second);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ error: 'payment_closed' });
    const lookup = await http('GET', `${ctx.baseUrl}/api/v1/payment-sessions/${second}`, {
      headers: { authorization: `Bearer ${merchant.apiKey}` },
    });
    expect(lookup.json.paymentSession).toMatchObject({ status: 'canceled', cancelReason: 'link_paid', exceptions: [] });
  }, 90_000);

  it('refuses Pay and the deposit from Postgres alone once the link is paid, before any workflow has ended the session', async () => {
    const { linkId } = await merchantWithLink();
    const first = await tab(linkId);
    const second = await tab(linkId);
    // The moment between the completion's transaction and the cancel reaching tab 2's run.
    await ctx.db.sql`update payment_links set status = 'paid', paid_session_id = ${first} where id = ${linkId}`;

    const page = await http('GET', `${ctx.baseUrl}/pay/${second}`);
    expect(page.text).toContain('Already paid');
    expect(page.text).not.toContain('id="pay-button"');
    expect(page.text).not.toContain('id="wallet-button"');
    const pay = await http('POST', `${ctx.baseUrl}/pay/${second}/start`);
    expect(pay.status).toBe(409);
    expect(pay.text).toContain('Already paid');
    const wallet = await http('POST', `${ctx.baseUrl}/pay/${second}/wallet`);
    expect(wallet.status).toBe(409);
    expect(wallet.text).not.toContain('id="deposit-address"');
    const deposit = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${second}/deposit`);
    expect(deposit.status).toBe(409);
    expect(deposit.json).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('already been paid') });
    expect(await sandboxPayment(second)).toBeUndefined();
    const row = await sessionRow(ctx, second);
    expect(row.status).toBe('pending');
    // The session that paid the link is not refused by its own payment.
    expect((await http('GET', `${ctx.baseUrl}/pay/${first}`)).text).not.toContain('Already paid');
    const link = await http('GET', `${ctx.baseUrl}/link/${linkId}`);
    expect(link.text).toContain('Already paid');
    expect(link.text).not.toContain('id="pay-button"');
  });
});

describe('a merchant that is not approved takes no new money', () => {
  it('refuses Pay (a page saying so), the deposit instructions (403 AccountNotApproved) and a new session from its link', async () => {
    const { merchant, linkId } = await merchantWithLink();
    const open = await tab(linkId);
    const api = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${merchant.apiKey}` },
      body: { amount: 12, currency: 'USD', countryCode: 'US' },
    });
    expect(api.status).toBe(201);
    const direct = api.json.checkoutSession.id as string;
    expect((await http('POST', `${ctx.baseUrl}/admin/v1/merchants/${merchant.id}/suspend`, { headers: adminHeaders })).status).toBe(200);

    for (const id of [open, direct]) {
      const page = await http('GET', `${ctx.baseUrl}/pay/${id}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('This merchant cannot take payments right now.');
      expect(page.text).not.toContain('id="pay-button"');
      const pay = await http('POST', `${ctx.baseUrl}/pay/${id}/start`);
      expect(pay.status, id).toBe(403);
      expect(pay.text).toContain('This merchant cannot take payments right now.');
      expect((await http('POST', `${ctx.baseUrl}/pay/${id}/wallet`)).status).toBe(403);
      const deposit = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/deposit`);
      expect(deposit.status).toBe(403);
      expect(deposit.json).toMatchObject({ ok: false, error: 'AccountNotApproved', requestId: expect.any(String) });
      expect(await sandboxPayment(id)).toBeUndefined();
      const row = await sessionRow(ctx, id);
      expect(row.status).toBe('pending');
      expect(row.expectedGross).toBeNull();
    }

    const linkPage = await http('GET', `${ctx.baseUrl}/link/${linkId}`);
    expect(linkPage.text).toContain('This merchant cannot take payments right now.');
    expect(linkPage.text).not.toContain('id="pay-button"');
    const before = (await ctx.db.sql`select count(*)::int as n from checkout_sessions where payment_link_id = ${linkId}`)[0]!.n;
    const refused = await fetch(`${ctx.baseUrl}/link/${linkId}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'country=US',
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('This merchant cannot take payments right now.');
    expect((await ctx.db.sql`select count(*)::int as n from checkout_sessions where payment_link_id = ${linkId}`)[0]!.n).toBe(before);

    // Approved again, the same open session takes the payment.
    expect((await http('POST', `${ctx.baseUrl}/admin/v1/merchants/${merchant.id}/approve`, { headers: adminHeaders })).status).toBe(200);
    expect((await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${direct}/deposit`)).status).toBe(200);
  });

  it('makes money that still reaches a suspended merchant’s open session an exception, never the payment', async () => {
    const { merchant } = await merchantWithLink();
    const api = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${merchant.apiKey}` },
      body: { amount: 12, currency: 'USD', countryCode: 'US' },
    });
    const id = api.json.checkoutSession.id as string;
    // The customer took the deposit instructions while the merchant was approved, and pays after its suspension.
    const { deposit } = (await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/deposit`)).json;
    expect((await http('POST', `${ctx.baseUrl}/admin/v1/merchants/${merchant.id}/suspend`, { headers: adminHeaders })).status).toBe(200);
    const g = parseCrypto(deposit.amount as string);
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.address, g);
    const exceptions = () => ctx.db.sql`select kind, amount_micro::text as amount, status from payment_exceptions where payment_id = ${id}`;
    expect(await eventually(exceptions, (rows) => rows.length === 1, 20_000, 'the exception')).toEqual([
      { kind: 'late', amount: g.toString(), status: 'open' },
    ]);
    await eventually(
      deliveredTo.bind(null, merchant.id),
      (events) => events.some((e) => e.event === 'payment.exception' && e.sessionId === id),
      20_000,
      'payment.exception',
    );
    expect((await sessionRow(ctx, id)).status).toBe('pending');
    expect((await ctx.db.sql`select state from chain_credits where payment_id = ${id}`).map((r) => r.state)).toEqual(['held']);

    // Approved again, the session is paid by what arrives from then on; the held money stays the exception's.
    expect((await http('POST', `${ctx.baseUrl}/admin/v1/merchants/${merchant.id}/approve`, { headers: adminHeaders })).status).toBe(200);
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.address, g);
    await eventually(
      async () => (await sessionRow(ctx, id)).status,
      (s) => s === 'completed',
      20_000,
      'completed',
    );
    const [tx] = await ctx.db.sql`select gross_micro::text as gross from transactions where payment_id = ${id}`;
    expect(tx!.gross).toBe(g.toString());
    expect(await exceptions()).toEqual([{ kind: 'late', amount: g.toString(), status: 'open' }]);
  });
});
