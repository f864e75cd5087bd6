import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCrypto } from '../../src/domain/money';
import { formatAmount } from '../../dashboard/src/format';
import { expectNoAxeViolations } from '../support/axe';
import { screenshotsOnFailure, useBrowser, watchProblems } from '../support/browser';
import { balanceOf, randomAddress } from '../support/chain';
import { approve, PASSWORD, signedUpOwner } from '../support/dashboard';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { useMailSink } from '../support/mail';
import { ownTreasury, payoutsOf } from '../payouts/support';
import { openSession, pressPay, waitForStatus } from '../proof/support';

// In real Chromium, on a phone: a completed payment refunded from its page, drawn from the balance,
// by an admin, in part (the amount pre-filled to the whole and changed, the customer's address
// pre-filled, the password asked by the step-up dialog), then the rest (the form pre-filled to it,
// the button pressed twice: one refund); the customer's wallet on anvil receives exactly the gross,
// and the form is gone. axe-core finds nothing.
const own = ownTreasury();
const token = own.chain.tokens.polygon.USDC;
const mailbox = useMailSink(own.overrides);
const ctx = useTestApp(own.overrides, { listen: true, worker: true, sandbox: true });
const chrome = useBrowser();
let context: Awaited<ReturnType<typeof chrome.browser.newContext>> | undefined;
beforeAll(() => undefined);
afterAll(async () => {
  await context?.close();
});

/** A payment completed and swept into the treasury; its share stays in the balance (the merchant is paid out manually). */
async function paidAndSwept(apiKey: string) {
  const id = await openSession(ctx, apiKey, {});
  const g = await pressPay(ctx, id);
  const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
    body: { reference: id, outcome: 'succeeded' },
  });
  expect(paid.status).toBe(200);
  await waitForStatus(ctx, id, 'completed', 60_000);
  await eventually(
    async () => (await payoutsOf(ctx, id)).map((p) => `${p.kind}:${p.status}`),
    (ps) => ps.includes('sweep:confirmed'),
    90_000,
    `the deposit of ${id} swept`,
  );
  return { id, g };
}

describe('refunding a completed payment in Chromium', () => {
  it('refunds part, then the rest, once each, from the payment’s page', async () => {
    const email = 'refund-walk@example.com';
    const owner = await signedUpOwner(ctx.app, mailbox, email, 'Refund Walk Shop');
    const apiKey = await approve(ctx.app, owner.merchantId);
    const put = await ctx.app.inject({
      method: 'PUT',
      url: `/admin/v1/merchants/${owner.merchantId}/wallets`,
      headers: adminHeaders,
      payload: { asset: 'USDC', network: 'polygon', address: randomAddress() },
    });
    expect(put.statusCode).toBe(200);
    await ctx.db.sql`update merchants set payout_schedule = 'manual' where id = ${owner.merchantId}`;
    // Two payments in the balance: their shares cover a refund of the first one whole.
    const a = await paidAndSwept(apiKey);
    await paidAndSwept(apiKey);
    const customer = randomAddress();
    // Kept on the session as the checkout page keeps it (refund-addresses.ts).
    await ctx.db.sql`update checkout_sessions set refund_address = ${customer} where id = ${a.id}`;

    context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: { width: 390, height: 844 } }), 'dashboard-payment-refund');
    const page = await context.newPage();
    const problems = watchProblems(page);
    const base = `${ctx.baseUrl}/dashboard`;
    // An admin's walk: their step-up is the password, asked in the step-up dialog.
    await ctx.db.sql`update dashboard_users set role = 'admin' where email = ${email}`;
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Refund Walk Shop' }).waitFor();

    await page.goto(`${base}/payments/${a.id}`);
    const form = page.getByRole('form', { name: 'Refund this payment' });
    await form.waitFor({ timeout: 30_000 });
    expect(await form.getByLabel(/^Amount/).inputValue()).toBe(formatCrypto(a.g));
    expect(await form.getByLabel('Refund address').inputValue()).toBe(customer);
    await expectNoAxeViolations(page, 'the payment refund form');

    const part = a.g / 4n;
    await form.getByLabel(/^Amount/).fill(formatCrypto(part));
    await form.getByRole('button', { name: 'Refund' }).click();
    const confirmIt = page.getByRole('dialog', { name: 'Confirm it is you' });
    await confirmIt
      .getByText(
        `To refund ${formatAmount(formatCrypto(part), 'USDC', { exact: true, locale: 'en-US' })} to ${customer}, confirm it is you.`,
        { exact: false },
      )
      .waitFor();
    await expectNoAxeViolations(page, 'the refund’s step-up');
    await confirmIt.getByLabel('Your password').fill(PASSWORD);
    await confirmIt.getByRole('button', { name: 'Confirm it is you' }).click();
    await expect.poll(() => page.getByTestId('payment-refund-status').allTextContents(), { timeout: 90_000 }).toEqual(['refunded']);
    expect(await balanceOf(own.chain, token, customer)).toBe(part);

    // The rest: the form now says what is left; the step-up still counts, so nothing is asked.
    // Pressed twice: the second press finds the button disabled while the first is under way.
    await expect.poll(() => form.getByLabel(/^Amount/).inputValue(), { timeout: 10_000 }).toBe(formatCrypto(a.g - part));
    await form.getByRole('button', { name: 'Refund' }).dblclick();
    await expect
      .poll(() => page.getByTestId('payment-refund-status').allTextContents(), { timeout: 90_000 })
      .toEqual(['refunded', 'refunded']);
    expect(await balanceOf(own.chain, token, customer)).toBe(a.g);
    await expect.poll(() => form.count(), { timeout: 10_000 }).toBe(0);
    const rows = await ctx.db.sql`select status from payment_refunds where payment_id = ${a.id}`;
    expect(rows).toEqual([{ status: 'refunded' }, { status: 'refunded' }]);
    await expectNoAxeViolations(page, 'a refunded payment');
    expect(problems).toEqual([]);
  }, 300_000);
});
