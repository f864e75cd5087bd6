import { describe, expect, it } from 'vitest';
import { de } from '../../src/api/hosted/i18n/de';
import { en } from '../../src/api/hosted/i18n/en';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { sessionRow, waitForStatus } from '../proof/support';
import { openLinkTab } from './support';

// At most one tab of a payment link takes money at a time, end to end over real sockets with the
// sandbox provider, the worker and the chain: while one tab pays (Pay pressed, or the deposit
// instructions taken), the others are refused Pay and the deposit with words saying so, until that
// tab's attempt ends without money (a decline, its cancel). Two Pays at once: exactly one passes.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });

const IN_PROGRESS = 'already in progress in another tab or window';

const sandbox = () => ctx.config.providers.sandbox.url;
const sandboxPay = (reference: string, outcome: 'succeeded' | 'declined') =>
  http('POST', `${sandbox()}/test-helpers/pay`, { body: { reference, outcome } });
const sandboxPayment = async (reference: string) => (await http('GET', `${sandbox()}/test-helpers/payments/${reference}`)).json?.payment;

async function createLink(): Promise<string> {
  const m = await createApprovedMerchant(ctx.app, { name: 'One Payer' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/payment-links`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 30, currency: 'USD' },
  });
  expect(res.status).toBe(201);
  return res.json.paymentLink.id as string;
}

const tab = (linkId: string) => openLinkTab(ctx.baseUrl, linkId);
const pressPay = (id: string, headers: Record<string, string> = {}) =>
  http('POST', `${ctx.baseUrl}/pay/${id}/start`, { redirect: 'manual', headers });
const deposit = (id: string) => http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/deposit`);

/** The tab is refused Pay and the deposit (the API's envelope, the page's words) because another tab is paying. */
async function expectRefused(id: string) {
  const provider = await sandboxPayment(id);
  const api = await deposit(id);
  expect(api.status).toBe(409);
  expect(api.json).toMatchObject({
    ok: false,
    error: 'Conflict',
    message: expect.stringContaining(IN_PROGRESS),
    requestId: expect.any(String),
  });
  const pay = await pressPay(id);
  expect(pay.status).toBe(409);
  expect(pay.headers.get('content-type')).toContain('text/html');
  expect(pay.text).toContain(en.common.linkInProgress);
  const wallet = await http('POST', `${ctx.baseUrl}/pay/${id}/wallet`);
  expect(wallet.status).toBe(409);
  expect(wallet.text).toContain(en.common.linkInProgress);
  expect(wallet.text).not.toContain('id="deposit-address"');
  // Refused before anything was asked of the provider: no payment made, a declined one not reopened.
  expect(await sandboxPayment(id)).toEqual(provider);
}

describe('one tab of a payment link pays at a time', () => {
  it('refuses the second tab while the first pays by card, and lets it pay once the first was declined', async () => {
    const linkId = await createLink();
    const a = await tab(linkId);
    const b = await tab(linkId);

    // Tab A presses Pay: its provider payment is open on the provider's page.
    expect((await pressPay(a)).status).toBe(303);
    expect((await sandboxPayment(a)).status).toBe('requires_action');
    await expectRefused(b);
    // Tab A itself goes on: its Pay again goes back to the same provider payment.
    expect((await pressPay(a)).status).toBe(303);

    // The card is declined: no money, A stays open, and the link is free for B.
    expect((await sandboxPay(a, 'declined')).status).toBe(200);
    await eventually(
      () => pressPay(b).then((r) => r.status),
      (s) => s === 303,
      15_000,
      'B may pay once A was declined',
    );
    expect((await sessionRow(ctx, a)).status).toBe('pending');
    // Now B pays, so A is the one refused (its Pay again, its deposit).
    await expectRefused(a);
    expect((await sandboxPay(b, 'succeeded')).status).toBe(200);
    await waitForStatus(ctx, b, 'completed', 30_000);
    await waitForStatus(ctx, a, 'canceled');
    const [link] = await ctx.db.sql`select status, paid_session_id from payment_links where id = ${linkId}`;
    expect(link).toEqual({ status: 'paid', paid_session_id: b });
  }, 90_000);

  it('holds the link for a tab that took the deposit instructions until that tab is canceled', async () => {
    const linkId = await createLink();
    const a = await tab(linkId);
    const b = await tab(linkId);
    const instructions = await deposit(a);
    expect(instructions.status).toBe(200);
    await expectRefused(b);
    // Asked again, A gets the same instructions.
    expect((await deposit(a)).json.deposit).toEqual(instructions.json.deposit);

    // A's customer cancels on A's page: the address is closed, so B may pay.
    expect((await http('POST', `${ctx.baseUrl}/pay/${a}/cancel`, { redirect: 'manual' })).status).toBe(303);
    await waitForStatus(ctx, a, 'canceled');
    expect((await deposit(b)).status).toBe(200);
    expect((await pressPay(a)).status).toBe(409);
  }, 60_000);

  it('lets exactly one of two tabs through when both press Pay, or one Pay and the other the deposit, at the same moment', async () => {
    for (let round = 0; round < 4; round++) {
      const linkId = await createLink();
      const [a, b] = [await tab(linkId), await tab(linkId)];
      const walletRound = round % 2 === 1;
      const [first, second] = await Promise.all([pressPay(a), walletRound ? deposit(b) : pressPay(b)]);
      const passed = [first.status === 303, second.status === (walletRound ? 200 : 303)];
      expect(passed.filter(Boolean), `round ${round}: ${first.status} ${second.status}`).toHaveLength(1);
      const refused = passed[0] ? second : first;
      expect(refused.status).toBe(409);
      expect(refused.text).toContain(IN_PROGRESS);
      // Only the tab that got through has a provider payment.
      const payments = await Promise.all([sandboxPayment(a), sandboxPayment(b)]);
      expect(payments.map((p) => p !== undefined)).toEqual(walletRound ? [passed[0], false] : passed);
    }
  }, 90_000);

  it('tells a browser on the checkout page, in its language, after the refused Pay redirects back', async () => {
    const linkId = await createLink();
    const a = await tab(linkId);
    const b = await tab(linkId);
    expect((await deposit(a)).status).toBe(200);

    const refused = await pressPay(b, { accept: 'text/html', 'accept-language': 'de' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe(`/pay/${b}`);
    const notice = refused.headers.get('set-cookie')!.split(';')[0]!;
    const page = await http('GET', `${ctx.baseUrl}/pay/${b}`, { headers: { cookie: notice, 'accept-language': 'de' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(de.common.linkInProgress);
    expect(page.text).not.toContain('id="deposit-address"');
  }, 60_000);
});
