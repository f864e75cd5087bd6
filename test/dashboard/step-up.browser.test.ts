import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectNoAxeViolations } from '../support/axe';
import { screenshotsOnFailure, useBrowser, watchProblems } from '../support/browser';
import { randomAddress } from '../support/chain';
import { approve, Authenticator, PASSWORD, signedInMember, signedUpOwner } from '../support/dashboard';
import { startTestWorker, useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';
import { seedBalance } from '../support/seed-balance';
import { screenshotBothSchemes } from './shots';

// Every sensitive action of the dashboard, in real Chromium on a phone, by an owner with two-factor
// on, from its own page: the one step-up dialog asks for the password and a code together, the
// action runs when it closes; the ones that cannot be undone (rotating the live key or the Security
// Code, rolling a signing secret, changing a role, removing a member) first say what will happen.
// Each dialog is cancelled once (nothing changes, nothing is sent) and then accepted. Secrets shown
// once and the recovery codes are copied with their Copy buttons. A step-up that ran out while the
// page was open is asked again, and the action runs after it. axe-core finds nothing on any dialog.
const mailbox = useMailSink();
const ctx = useTestApp(mailbox.env, { listen: true });
const chrome = useBrowser();

type Clipboard = { navigator: { clipboard: { readText(): Promise<string> } } };
const clipboard = (page: Page) => page.evaluate(() => (globalThis as unknown as Clipboard).navigator.clipboard.readText());
type Focused = { document: { activeElement: { textContent: string | null } | null } };
const focused = (page: Page) => page.evaluate(() => (globalThis as unknown as Focused).document.activeElement?.textContent ?? null);

describe('the step-up dialog in Chromium', { timeout: 180_000 }, () => {
  it('asks before each sensitive action, once, and does nothing when cancelled', async () => {
    const email = 'step-up-walk@example.com';
    const owner = await signedUpOwner(ctx.app, mailbox, email, 'Step Up Shop');
    const liveKey = await approve(ctx.app, owner.merchantId);
    const member = await signedInMember(ctx.app, ctx.db.sql, owner.merchantId, 'step-up-dev@example.com', 'developer');
    const seeded = await seedBalance(ctx.db.db, owner.merchantId, { paid: 1, available: 1, payoutAt: new Date() });
    const refundable = seeded.available[0]!;
    // Proven on chain at its deposit address, as a refund of a completed payment needs.
    await ctx.db.sql`update checkout_sessions set verification = 'chain', deposit_address = ${randomAddress()} where id = ${refundable}`;

    const context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: { width: 390, height: 844 } }), 'dashboard-step-up');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.baseUrl });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const base = `${ctx.baseUrl}/dashboard`;
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Step Up Shop' }).waitFor();

    // Two-factor on, from Account security; the recovery codes copied at once.
    await page.goto(`${base}/security`);
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    const app = new Authenticator((await page.getByTestId('totp-secret').textContent())!, ctx.clock);
    await page.getByLabel('The 6-digit code your app shows').fill(await app.code());
    await page.getByRole('button', { name: 'Confirm and turn on' }).click();
    const codes = page.getByTestId('recovery-codes').locator('li');
    await expect.poll(() => codes.count()).toBe(10);
    await page.getByRole('button', { name: 'Copy the recovery codes' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await clipboard(page)).toBe((await codes.allTextContents()).join('\n'));
    await page.getByRole('button', { name: 'I have saved them' }).click();

    const stepUpDialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    /** The step-up ran out (the session's, in the table); `reload`: the page learns it, else only the server's refusal tells. */
    const lapse = async (path?: string) => {
      await ctx.db.sql`update dashboard_sessions set stepped_up_at = null`;
      if (path) {
        await page.goto(`${base}${path}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
      }
    };
    /** The password and a fresh code, in the one step the dialog asks for them. */
    const confirmIt = async (dialog: Locator, button = 'Confirm it is you') => {
      await dialog.getByLabel('Your password').fill(PASSWORD);
      await dialog.getByLabel('Code from your authenticator app').fill(await app.code());
      await dialog.getByRole('button', { name: button }).click();
      await dialog.waitFor({ state: 'detached' });
    };
    /** A secret shown once: copied with its button, then closed. */
    const copyShownOnce = async (title: string) => {
      const shown = page.getByRole('dialog', { name: title });
      const secret = (await shown.getByTestId('secret').textContent())!;
      await shown.getByRole('button', { name: 'Copy the secret' }).click();
      await shown.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
      expect(await clipboard(page)).toBe(secret);
      await shown.getByRole('button', { name: 'I have saved it' }).click();
      await shown.waitFor({ state: 'detached' });
      return secret;
    };
    const audited = async () =>
      (await ctx.db.sql`select action from dashboard_audit_log where merchant_id = ${owner.merchantId} order by id`).map((r) => r.action);

    // The live key, on the overview: cancelled, it is still waiting; then revealed and copied.
    await lapse('/');
    await page.getByRole('button', { name: 'Reveal the live key' }).click();
    await stepUpDialog.getByText('To reveal the live key, confirm it is you. It then counts for 10 minutes.').waitFor();
    await expectNoAxeViolations(page, 'the step-up dialog');
    await stepUpDialog.getByRole('button', { name: 'Cancel' }).click();
    await stepUpDialog.waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('Reveal the live key');
    expect(await audited()).not.toContain('live_key.revealed');
    await page.getByRole('button', { name: 'Reveal the live key' }).click();
    await confirmIt(stepUpDialog);
    expect(await copyShownOnce('Live API key')).toBe(liveKey);

    // Developers: a key with fewer scopes asks nothing; one with every scope asks.
    await lapse('/developers');
    await page.getByRole('checkbox', { name: 'transactions:read' }).check();
    await page.getByRole('button', { name: 'Create restricted key' }).click();
    await copyShownOnce('New restricted API key');
    // The page is out from under the closed dialog (no longer aria-hidden) before its boxes are listed.
    const scopes = page.getByRole('group', { name: 'A restricted key with only these scopes' });
    await scopes.waitFor();
    for (const scope of await scopes.getByRole('checkbox').all()) await scope.check();
    await page.getByRole('button', { name: 'Create restricted key' }).click();
    await stepUpDialog.getByText('To create a key with every scope, confirm it is you.', { exact: false }).waitFor();
    await confirmIt(stepUpDialog);
    await copyShownOnce('New restricted API key');
    const keys = async () =>
      (await ctx.db.sql`select id from api_keys where merchant_id = ${owner.merchantId} order by id`).map((r) => r.id);
    expect(await keys()).toHaveLength(3);

    // Rotating the live key says what happens to the current one, and asks for the step-up in the same dialog.
    await lapse('/developers');
    await page.getByRole('button', { name: 'Rotate the live key' }).click();
    const rotateDialog = page.getByRole('dialog', { name: 'Rotate the live key?' });
    await rotateDialog.getByText('The current one keeps working for 24 hours, then stops for good', { exact: false }).waitFor();
    await rotateDialog.getByText('To rotate the live key, confirm it is you.', { exact: false }).waitFor();
    await expectNoAxeViolations(page, 'the rotation dialog with its step-up');
    await screenshotBothSchemes(page, 'step-up-rotate-dialog-phone');
    await rotateDialog.getByRole('button', { name: 'Cancel' }).click();
    await rotateDialog.waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('Rotate the live key');
    expect(await keys()).toHaveLength(3);
    await page.getByRole('button', { name: 'Rotate the live key' }).click();
    await confirmIt(rotateDialog, 'Rotate the live key');
    const rotated = await copyShownOnce('New live API key');
    expect(rotated).toMatch(/^svc_live_/);
    expect(await keys()).toHaveLength(4);

    // The Security Code: stepped up just now, so the dialog only says what happens and asks.
    const securityCode = async () =>
      (await ctx.db.sql`select security_code_hash from merchants where id = ${owner.merchantId}`)[0]!.security_code_hash;
    const codeBefore = await securityCode();
    await page.getByRole('button', { name: 'Rotate the Security Code' }).click();
    const codeDialog = page.getByRole('dialog', { name: 'Rotate the Security Code?' });
    await codeDialog.getByText('the current one stops working at once', { exact: false }).waitFor();
    expect(await codeDialog.getByLabel('Your password').count()).toBe(0);
    await expectNoAxeViolations(page, 'the Security Code dialog');
    await codeDialog.getByRole('button', { name: 'Cancel' }).click();
    await codeDialog.waitFor({ state: 'detached' });
    expect(await securityCode()).toEqual(codeBefore);
    await page.getByRole('button', { name: 'Rotate the Security Code' }).click();
    await codeDialog.getByRole('button', { name: 'Rotate the Security Code' }).click();
    await copyShownOnce('New Security Code');
    expect(await securityCode()).not.toEqual(codeBefore);

    // A webhook endpoint, while the page still believes the step-up counts: the server refuses, the
    // dialog asks again, and the endpoint is added after it.
    await lapse();
    const url = 'http://127.0.0.1:9/step-up';
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await stepUpDialog.getByText('Your last confirmation ran out: to add a webhook endpoint, confirm it is you again.').waitFor();
    await confirmIt(stepUpDialog);
    const firstSecret = await copyShownOnce('Signing secret');
    await page.getByText(`${url} — enabled`, { exact: false }).waitFor();

    // Rolling its secret: what happens to the current one, then asked.
    const endpointSecret = async () =>
      (await ctx.db.sql`select secret_encrypted from webhook_endpoints where merchant_id = ${owner.merchantId}`)[0]!.secret_encrypted;
    const sealedBefore = await endpointSecret();
    await page.getByRole('button', { name: `Roll the signing secret of ${url}` }).click();
    const rollDialog = page.getByRole('dialog', { name: 'Roll the signing secret?' });
    await rollDialog
      .getByText(`A new secret for ${url} is made and shown once, and the current one stops at once`, { exact: false })
      .waitFor();
    await rollDialog.getByRole('button', { name: 'Cancel' }).click();
    await rollDialog.waitFor({ state: 'detached' });
    expect(await endpointSecret()).toEqual(sealedBefore);
    await page.getByRole('button', { name: `Roll the signing secret of ${url}` }).click();
    await rollDialog.getByRole('button', { name: 'Roll the signing secret' }).click();
    expect(await copyShownOnce('Signing secret')).not.toBe(firstSecret);
    expect(await endpointSecret()).not.toEqual(sealedBefore);

    // Money: a wallet, then the schedule, each behind the step-up.
    const wallets = () => ctx.db.sql`select address from merchant_wallets where merchant_id = ${owner.merchantId}`;
    await lapse('/money');
    const wallet = randomAddress();
    await page.getByLabel('Address').fill(wallet);
    await page.getByRole('button', { name: 'Set the wallet' }).click();
    await stepUpDialog.getByText('To change a settlement wallet, confirm it is you.', { exact: false }).waitFor();
    await stepUpDialog.getByRole('button', { name: 'Cancel' }).click();
    await stepUpDialog.waitFor({ state: 'detached' });
    expect(await wallets()).toEqual([]);
    await page.getByRole('button', { name: 'Set the wallet' }).click();
    await confirmIt(stepUpDialog);
    await page
      .getByRole('status')
      .filter({ hasText: `settles to ${wallet}` })
      .waitFor();
    expect(await wallets()).toEqual([{ address: wallet }]);
    await lapse('/money');
    const scheduleForm = page.getByRole('form', { name: 'Change when payouts go' });
    await scheduleForm.getByLabel('Payout schedule').selectOption('weekly');
    await scheduleForm.getByRole('button', { name: 'Save the schedule' }).click();
    await confirmIt(stepUpDialog);
    await page.getByTestId('payout-schedule').filter({ hasText: 'Weekly, from Monday 00:00 UTC' }).waitFor();

    // A completed payment refunded in part, from its page.
    const refunds = () => ctx.db.sql`select id, amount_micro::text as amount from payment_refunds where payment_id = ${refundable}`;
    await lapse(`/payments/${refundable}`);
    const refundForm = page.getByRole('form', { name: 'Refund this payment' });
    await refundForm.getByLabel('Amount (USDC)').fill('10');
    await refundForm.getByLabel('Refund address').fill(randomAddress());
    await refundForm.getByRole('button', { name: 'Refund' }).click();
    await stepUpDialog.getByText('To refund 10 USDC to 0x', { exact: false }).waitFor();
    await stepUpDialog.getByRole('button', { name: 'Cancel' }).click();
    await stepUpDialog.waitFor({ state: 'detached' });
    expect(await refunds()).toEqual([]);
    expect(await refundForm.getByRole('alert').count()).toBe(0);
    // The refund's run records it: a worker for it alone, without the chain watchers.
    const worker = await startTestWorker(ctx, { watch: false });
    await refundForm.getByRole('button', { name: 'Refund' }).click();
    await confirmIt(stepUpDialog);
    await expect.poll(() => page.getByTestId('payment-refund-status').allTextContents()).toEqual(['requested']);
    const [refund] = await refunds();
    expect(refund).toMatchObject({ amount: '10000000' });
    // Its transfer is not this file's subject: the run is ended, not left on the shared server.
    await ctx.temporal.workflow.getHandle(refund!.id).terminate('test over');
    await worker.shutdown();

    // The team: a role changes after the dialog says what the new one may do; a removal asks first.
    const roleOf = async () => (await ctx.db.sql`select role from dashboard_users where id = ${member.userId}`)[0]?.role;
    await lapse('/team');
    const roleSelect = page.getByLabel('Role of step-up-dev@example.com');
    await roleSelect.selectOption('admin');
    const roleDialog = page.getByRole('dialog', { name: 'Make step-up-dev@example.com an admin?' });
    await roleDialog
      .getByText(
        'step-up-dev@example.com is a developer now. From their next request, as an admin: everything but owners and the audit log.',
      )
      .waitFor();
    await expectNoAxeViolations(page, 'the role dialog with its step-up');
    await roleDialog.getByRole('button', { name: 'Cancel' }).click();
    await roleDialog.waitFor({ state: 'detached' });
    expect(await roleOf()).toBe('developer');
    expect(await roleSelect.inputValue()).toBe('developer');
    await roleSelect.selectOption('admin');
    await confirmIt(roleDialog, 'Make them an admin');
    await expect.poll(() => roleSelect.inputValue()).toBe('admin');
    expect(await roleOf()).toBe('admin');

    await page.getByRole('button', { name: 'Remove step-up-dev@example.com' }).click();
    const removeDialog = page.getByRole('alertdialog', { name: 'Remove step-up-dev@example.com?' });
    await removeDialog.getByText('They are signed out at once', { exact: false }).waitFor();
    await screenshotBothSchemes(page, 'team-remove-alertdialog-phone');
    await removeDialog.getByRole('button', { name: 'Cancel' }).click();
    await removeDialog.waitFor({ state: 'detached' });
    expect(await roleOf()).toBe('admin');
    await page.getByRole('button', { name: 'Remove step-up-dev@example.com' }).click();
    await removeDialog.getByRole('button', { name: 'Remove the member' }).click();
    await expect.poll(() => page.getByLabel('Role of step-up-dev@example.com').count()).toBe(0);
    expect(await roleOf()).toBeUndefined();

    // Each step-up is one line (one per accepted dialog that asked for it), each action one more.
    const lines = await audited();
    expect(lines.filter((a) => a === 'session.stepped_up')).toHaveLength(8);
    for (const action of [
      'live_key.revealed',
      'live_key.rotated',
      'security_code.rotated',
      'webhook_endpoint.created',
      'webhook_endpoint.secret_rolled',
      'member.role_changed',
      'member.removed',
    ])
      expect(
        lines.filter((a) => a === action),
        action,
      ).toHaveLength(1);
    // The one console line: the server's refusal of the endpoint once the step-up had run out.
    expect(problems).toEqual([expect.stringMatching(/status of 403/)]);
    await context.close();
  });
});
