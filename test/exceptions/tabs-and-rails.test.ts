import { describe, expect, it } from 'vitest';
import { paymentAtRest } from '../support/at-rest';
import { sharedChain } from '../support/chain';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { orderDepositAddressOf } from '../support/proof';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import { creditsOf, exceptionsOf, payFromWallet, sessionRow } from '../proof/support';

// Exceptions, end to end: two tabs of one payment link, and a simple order paid on two rails. The
// second payment is refused where it can be, and is an open exception where it cannot, never nowhere.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();

const sandboxPay = (reference: string) =>
  http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference, outcome: 'succeeded' } });
const sandboxPayment = async (reference: string) =>
  (await http('GET', `${ctx.config.providers.sandbox.url}/test-helpers/payments/${reference}`)).json?.payment;

async function createLink() {
  const m = await createApprovedMerchant(ctx.app, { name: 'Two Tabs' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/payment-links`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 30, currency: 'USD' },
  });
  expect(res.status).toBe(201);
  return res.json.paymentLink.id as string;
}
async function tab(linkId: string): Promise<{ status: number; sessionId: string | null; text: string }> {
  const res = await fetch(`${ctx.baseUrl}/link/${linkId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'country=US',
    redirect: 'manual',
  });
  const location = res.headers.get('location') ?? '';
  return { status: res.status, sessionId: /\/pay\/(SV_[0-9A-Za-z]{24})$/.exec(location)?.[1] ?? null, text: await res.text() };
}

describe('two tabs of one payment link', () => {
  it('tells the second tab that the payment is in progress elsewhere, on both rails, until the other tab’s card is declined', async () => {
    const linkId = await createLink();
    // Both tabs open a checkout before either pays.
    const a = await tab(linkId);
    const b = await tab(linkId);
    expect([a.status, b.status]).toEqual([303, 303]);
    // Tab B presses Pay: its provider payment exists. Tab A pressing Pay now is told so.
    expect((await http('POST', `${ctx.baseUrl}/pay/${b.sessionId}/start`)).status).toBe(303);
    const refused = await http('POST', `${ctx.baseUrl}/pay/${a.sessionId}/start`);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('already in progress in another tab or window');
    // A third tab cannot even open a checkout while B's payment is in progress.
    const c = await tab(linkId);
    expect(c.status).toBe(409);
    expect(c.text).toContain('already in progress in another tab or window');
    // Nor can tab A pay from a wallet instead: no deposit instructions while B pays.
    const walletRefused = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${a.sessionId}/deposit`);
    expect(walletRefused.status).toBe(409);
    expect(walletRefused.json).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('another tab or window') });

    // B's card is declined (no money): A may pay from a wallet now, and the link is paid by A...
    expect(
      (
        await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
          body: { reference: b.sessionId, outcome: 'declined' },
        })
      ).status,
    ).toBe(200);
    const deposit = await eventually(
      () => http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${a.sessionId}/deposit`),
      (r) => r.status === 200,
      15_000,
      'A’s deposit once B was declined',
    );
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.json.deposit.address, 30_000_000n * 2n);
    await eventually(
      () => sessionRow(ctx, a.sessionId!).then((r) => r.status),
      (s) => s === 'completed',
      20_000,
      'A completed',
    );
    // ...so B ends, and its customer's second attempt at the card is refused by the service.
    await eventually(
      () => sessionRow(ctx, b.sessionId!).then((r) => r.status),
      (s) => s === 'canceled',
      20_000,
      'B canceled',
    );
    const late = await sandboxPay(b.sessionId!);
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ error: 'service_refused', serviceStatus: 409 });
    expect((await sandboxPayment(b.sessionId!)).status).toBe('failed');
    expect(await creditsOf(ctx, b.sessionId!)).toEqual([]);
    expect(await exceptionsOf(ctx, b.sessionId!)).toEqual([]);
    const [link] = await ctx.db.sql`select status, paid_session_id from payment_links where id = ${linkId}`;
    expect(link).toEqual({ status: 'paid', paid_session_id: a.sessionId });
  }, 60_000);
});

describe('a simple order paid on two rails', () => {
  const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
  const api = (path: string) => `${ctx.baseUrl}/api${path}`;

  it('closes the first rail’s provider payment when the customer switches, and records its success, with no transfer seen, as one unverified exception', async () => {
    const created = await http('POST', api('/checkout'), {
      body: {
        fiat_amount: 25,
        fiat_currency: 'EUR',
        customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
      },
    });
    expect(created.status).toBe(201);
    const code = created.json.data.transaction_code as string;
    const card = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=card`));
    expect(card.json.data.type).toBe('fiat');
    const first = await sandboxPayment(code);
    expect(first.status).toBe('requires_action');

    // The customer switches to the crypto rail: the card payment is closed and its page refuses.
    expect((await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=usdc_polygon`))).json.data.type).toBe('crypto');
    const closed = await http('GET', `${ctx.config.providers.sandbox.url}/test-helpers/payments/${code}`);
    expect(closed.json.payment).toMatchObject({ id: first.id, status: 'canceled' });
    const page = await fetch(`${first.checkoutUrl}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=succeeded',
      redirect: 'manual',
    });
    expect(page.status).toBe(409);

    // The deposit settles the order.
    expect((await sandboxPay(code)).status).toBe(200);
    await eventually(
      () => http('GET', api(`/transaction?transaction_code=${code}`)).then((r) => r.json.data.status as string),
      (s) => s === 'settled',
      20_000,
      'settled',
    );

    // A provider that could not close in time reports the card payment's success too: recorded once
    // however often it is reported. The provider delivers to the order's own deposit address (polygon
    // has a verifier), so its word is a claim until the transfer is seen there: `unverified`, never
    // refundable or acceptable as money (its log, if it comes, makes it a duplicate: proof/money-rules).
    const session = {
      id: code,
      amount: '25.00',
      currency: 'EUR',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: await orderDepositAddressOf(ctx, code),
    };
    const second = sandboxEvent(session, 'payment.succeeded', { paymentId: first.id, destinationAmount: '27.000000' });
    for (let i = 0; i < 2; i++)
      expect((await postCallback(ctx.app, second, { secret: ctx.config.providers.sandbox.callbackSecret })).statusCode).toBe(200);
    const rows = await exceptionsOf(ctx, code);
    expect(rows).toEqual([expect.objectContaining({ kind: 'unverified', status: 'open', amount: 27_000_000n })]);
    const queue = await ctx.app.inject({ method: 'GET', url: '/admin/v1/exceptions?status=open', headers: adminHeaders });
    expect(queue.json().exceptions).toEqual(
      expect.arrayContaining([expect.objectContaining({ paymentKind: 'simple_order', paymentId: code, kind: 'unverified' })]),
    );
    // A simple order cannot be accepted as something else: the operator is told so.
    const id = queue.json().exceptions.find((e: { paymentId: string }) => e.paymentId === code).id;
    const accept = await ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${id}/accept`, headers: adminHeaders });
    expect(accept.statusCode).toBe(409);
  }, 60_000);

  it('closes the crypto rail’s deposit when the customer switches to card: funds sent to the old address are refused, the card pays once', async () => {
    const created = await http('POST', api('/checkout'), {
      body: {
        fiat_amount: 20,
        fiat_currency: 'EUR',
        customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
      },
    });
    const code = created.json.data.transaction_code as string;
    const crypto = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=usdc_polygon`));
    expect(crypto.json.data.type).toBe('crypto');
    const helper = `${ctx.config.providers.sandbox.url}/test-helpers/payments/${code}`;
    const opened = (await http('GET', helper)).json.deposit;
    expect(opened).toMatchObject({ status: 'awaiting_funds', address: crypto.json.data.address });

    // The customer switches to card: the deposit is closed at the provider.
    expect((await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=card`))).json.data.type).toBe('fiat');
    expect((await http('GET', helper)).json.deposit).toMatchObject({ id: opened.id, status: 'canceled' });
    const toOld = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
      body: { reference: code, outcome: 'succeeded', depositId: opened.id },
    });
    expect(toOld.status).toBe(409);
    expect(toOld.json).toMatchObject({ error: 'payment_closed', message: expect.stringContaining('chose another way to pay') });

    // The card settles the order, and nothing else arrives.
    expect((await sandboxPay(code)).status).toBe(200);
    await eventually(
      () => http('GET', api(`/transaction?transaction_code=${code}`)).then((r) => r.json.data.status as string),
      (st) => st === 'settled',
      20_000,
      'settled',
    );
    await paymentAtRest(ctx, code);
    expect(await exceptionsOf(ctx, code)).toEqual([]);
    expect((await creditsOf(ctx, code)).length).toBe(1);
  }, 60_000);
});
