import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { formatCryptoAmount, parseCrypto } from '../../src/domain/money';
import { expectNoAxeViolations } from '../support/axe';
import { screenshotsOnFailure, useBrowser, watchProblems } from '../support/browser';
import { balanceOf, payFromWallet, randomAddress } from '../support/chain';
import { approve, enrolTwoFactor, PASSWORD, signedUpOwner } from '../support/dashboard';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { useMailSink } from '../support/mail';
import { startReceiver } from '../support/receiver';
import { ownTreasury } from '../payouts/support';
import { exceptionsOf, openSession, pressPay, sessionRow } from '../proof/support';

// A payment's page opened before it is paid
// follows it live (the sandbox's payment completes and settles without a reload), a payment from a
// wallet shows its own timeline, and a duplicate payment is refunded from the page by an owner with
// two-factor on (the customer's address pre-filled; the step-up dialog, cancelled once, asks for the
// password and a code in one step): the customer's wallet on anvil receives it exactly once.
// axe-core finds nothing, light or dark.
const own = ownTreasury();
const token = own.chain.tokens.polygon.USDC;
const mailbox = useMailSink(own.overrides);
const ctx = useTestApp(own.overrides, { listen: true, worker: true, sandbox: true });
const chrome = useBrowser();
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('a payment’s page in Chromium', () => {
  it('follows a payment live, shows a wallet payment, refunds a duplicate once from the page, accessible throughout', async () => {
    const owner = await signedUpOwner(ctx.app, mailbox, 'page@example.com', 'Page Shop');
    const apiKey = await approve(ctx.app, owner.merchantId);
    const put = await ctx.app.inject({
      method: 'PUT',
      url: `/admin/v1/merchants/${owner.merchantId}/wallets`,
      headers: adminHeaders,
      payload: { asset: 'USDC', network: 'polygon', address: randomAddress() },
    });
    expect(put.statusCode).toBe(200);
    const id = await openSession(ctx, apiKey, { orderId: 'walk-1', metadata: { basket: 'b-9' }, webhookUrl: `${receiver.url}/h` });
    await pressPay(ctx, id);

    const context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: { width: 390, height: 844 } }), 'dashboard-payment');
    const page = await context.newPage();
    const problems = watchProblems(page);
    const base = `${ctx.baseUrl}/dashboard`;
    // The walk is an owner's, with a second factor: their step-up asks for the password and a code.
    const { app } = await enrolTwoFactor(owner.client, ctx.clock);
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').fill('page@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Code from your authenticator app').fill(await app.code());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Page Shop' }).waitFor();

    // Opened while pending: created and Pay pressed, the metadata.
    await page.goto(`${base}/payments/${id}`);
    await page.getByRole('heading', { name: `Payment ${id}` }).waitFor();
    await expect.poll(() => page.getByTestId('payment-status').textContent()).toBe('pending');
    await expect.poll(() => page.locator('[data-kind="pay_pressed"]').count()).toBe(1);
    expect(await page.getByTestId('metadata').textContent()).toContain('b-9');
    await expectNoAxeViolations(page, 'a pending payment');

    // Paid through the sandbox: the page follows without a reload, to the settlement and its webhook.
    const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
      body: { reference: id, outcome: 'succeeded' },
    });
    expect(paid.status).toBe(200);
    await expect.poll(() => page.getByTestId('payment-status').textContent(), { timeout: 90_000 }).toBe('completed');
    await page.getByText('Settled: your payout is confirmed on chain').waitFor({ timeout: 90_000 });
    await expect.poll(() => page.locator('[data-kind="credit"] a').count()).toBeGreaterThan(0);
    await page.getByText('Webhook payment.completed').waitFor();
    expect(await page.getByRole('button', { name: /^Resend payment\.completed/ }).count()).toBe(1);
    const { depositAddress } = await sessionRow(ctx, id);
    await expect.poll(() => page.getByTestId('proof-balance').textContent(), { timeout: 30_000 }).toBe('0.00 USDC');
    await expectNoAxeViolations(page, 'a settled payment');

    // Paid again from a wallet: a duplicate, the customer leaves a refund address on the checkout page.
    await payFromWallet(own.chain, token, depositAddress, 2_000_000n);
    await eventually(
      () => exceptionsOf(ctx, id),
      (rows) => rows.length === 1,
      30_000,
      'the duplicate exception',
    );
    const customer = randomAddress();
    await eventually(
      () => http('POST', `${ctx.baseUrl}/pay/${id}/refund-address`, { body: { address: customer } }).then((r) => r.status),
      (status) => status === 200,
      20_000,
      'the refund address saved',
    );
    const form = page.getByRole('form', { name: 'Refund 2.00 USDC' });
    await form.waitFor({ timeout: 30_000 });
    await expect.poll(() => form.getByLabel('Refund address').inputValue(), { timeout: 10_000 }).toBe(customer);
    await expectNoAxeViolations(page, 'the refund form');
    // The step-up dialog says what the refund does; cancelled, nothing is sent.
    await form.getByRole('button', { name: /^Refund 2\.00 USDC/ }).click();
    const confirmIt = page.getByRole('dialog', { name: 'Confirm it is you' });
    await confirmIt.getByText(`To send 2.00 USDC back to ${customer}, confirm it is you.`, { exact: false }).waitFor();
    await confirmIt.getByRole('button', { name: 'Cancel' }).click();
    await confirmIt.waitFor({ state: 'detached' });
    expect(await ctx.db.sql`select id from payouts where payment_id = ${id} and kind = 'refund'`).toEqual([]);
    expect(await page.getByTestId('exception-status').textContent()).toBe('open');
    await form.getByRole('button', { name: /^Refund 2\.00 USDC/ }).click();
    await expectNoAxeViolations(page, 'the refund’s step-up');
    await confirmIt.getByLabel('Your password').fill(PASSWORD);
    await confirmIt.getByLabel('Code from your authenticator app').fill(await app.code());
    await confirmIt.getByRole('button', { name: 'Confirm it is you' }).click();
    await expect
      .poll(() => page.getByTestId('refund-state').textContent(), { timeout: 90_000 })
      .toMatch(new RegExp(`^Refund of 2\\.00 USDC to ${customer}: confirmed in`));
    expect(await balanceOf(own.chain, token, customer)).toBe(2_000_000n);
    // The exception is resolved by its run after the payout's receipt: the page shows it on a later read.
    await expect.poll(() => page.getByTestId('exception-status').textContent(), { timeout: 30_000 }).toBe('refunded');
    const refunds = await ctx.db.sql`select status from payouts where payment_id = ${id} and kind = 'refund'`;
    expect(refunds).toEqual([{ status: 'confirmed' }]);
    await expectNoAxeViolations(page, 'a refunded exception');

    // A session paid from the customer's own wallet, first in part: its page and the list say what
    // arrived of what, and that it comes from the customer's wallet (never the provider's name).
    const walletId = await openSession(ctx, apiKey, { orderId: 'walk-2' });
    const deposit = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${walletId}/deposit`);
    expect(deposit.status).toBe(200);
    const { address, amount } = deposit.json.deposit as { address: Address; amount: string };
    const expected = `${formatCryptoAmount(parseCrypto(amount))} USDC`;
    await payFromWallet(own.chain, token, address, 10_000_000n);
    await page.goto(`${base}/payments/${walletId}`);
    await expect
      .poll(
        () =>
          page
            .getByTestId('partly-paid')
            .textContent()
            .catch(() => null),
        { timeout: 60_000 },
      )
      .toMatch(new RegExp(`^Partly paid: 10\\.00 of ${expected.replace('.', '\\.')} arrived;`));
    expect(await page.getByTestId('payment-status').textContent()).toBe('pending');
    expect(await page.getByTestId('paid-with').textContent()).toBe("From the customer's wallet");
    expect(await page.getByTestId('payment-amount').textContent()).toBe('25.00 USD, paid in USDC on Polygon');
    await page.goto(`${base}/payments?q=walk-2`);
    const row = page.getByTestId('payment').filter({ hasText: walletId });
    await expect.poll(() => row.getByTestId('payment-status').textContent()).toBe(`Partly paid: 10.00 of ${expected} arrived`);
    expect(await row.getByTestId('paid-with').textContent()).toBe("From the customer's wallet");
    await expectNoAxeViolations(page, 'a partly paid payment in the list');
    await payFromWallet(own.chain, token, address, parseCrypto(amount) - 10_000_000n);
    await page.goto(`${base}/payments/${walletId}`);
    await expect.poll(() => page.getByTestId('payment-status').textContent(), { timeout: 60_000 }).toBe('completed');
    expect(await page.getByTestId('paid-with').textContent()).toBe("From the customer's wallet");
    expect(await page.getByTestId('partly-paid').count()).toBe(0);
    await expect.poll(() => page.locator('[data-kind="credit"]').count()).toBe(2);
    expect(await page.locator('[data-kind="pay_pressed"]').count()).toBe(0);
    await expectNoAxeViolations(page, 'a wallet payment');

    // A network without a verifier here: the provider's word is the proof, and the page says so
    // rather than a balance and credits it never reads.
    const solana = await ctx.app.inject({
      method: 'PUT',
      url: `/admin/v1/merchants/${owner.merchantId}/wallets`,
      headers: adminHeaders,
      payload: { asset: 'USDC', network: 'solana', address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV' },
    });
    expect(solana.statusCode).toBe(200);
    const providerId = await openSession(ctx, apiKey, { orderId: 'walk-3', network: 'solana' });
    expect(await sessionRow(ctx, providerId)).toMatchObject({ verification: 'provider', depositAddress: null });
    await page.goto(`${base}/payments/${providerId}`);
    await expect
      .poll(() =>
        page
          .getByTestId('proof-none')
          .textContent()
          .catch(() => null),
      )
      .toBe(
        "The provider's word proves this payment: Solana has no verifier here, so there is no deposit address and nothing on chain to read.",
      );
    expect(await page.getByTestId('proof-balance').count()).toBe(0);

    // The server's word on a filter shows beside the field it names (a 422's details), in words.
    await page.goto(`${base}/payments?minAmount=5`);
    const minimum = page.locator('.field').filter({ has: page.getByLabel('Amount at least') });
    await expect.poll(() => minimum.getByTestId('field-error').textContent()).toBe('An amount filter needs a currency.');
    expect(await page.getByLabel('Amount at least').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('field-error').count()).toBe(1);
    await expectNoAxeViolations(page, 'a filter the server refused');

    // The console's lines: the sign-in's first answer (403, a code is needed) and the refused filter (422), as failed loads.
    expect(problems).toEqual([expect.stringMatching(/status of 403/), expect.stringMatching(/status of 422/)]);
    await context.close();
  }, 300_000);
});
