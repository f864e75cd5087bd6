import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/verify';
import { expectNoAxeViolations } from '../support/axe';
import { screenshotsOnFailure, watchProblems, useBrowser } from '../support/browser';
import { approve, PASSWORD, signedUpOwner, enrolTwoFactor } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { useMailSink } from '../support/mail';
import { startReceiver } from '../support/receiver';

// A restricted key (shown once) → the live key rotated
// (its overlap counted down) → a webhook endpoint for chosen events → a test event that arrives
// signed with the endpoint's secret → the delivery log → resend; the request log. axe-core finds
// nothing on any page or dialog, light or dark, on the phone and on a wide screen.
const mailbox = useMailSink();
// The mailbox fills its env in its beforeAll: the settings go into the same object.
Object.assign(mailbox.env, { WEBHOOK_RETRY_BASE_SECONDS: '0.5', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '1' });
const ctx = useTestApp(mailbox.env, { listen: true, worker: true });
const chrome = useBrowser();
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('the developers area in Chromium', { timeout: 150_000 }, () => {
  it('restricted key → endpoint → signed test event → delivery log → resend, accessible throughout', async () => {
    const owner = await signedUpOwner(ctx.app, mailbox, 'walk@example.com', 'Walk Shop');
    await approve(ctx.app, owner.merchantId);
    // The owner has a second factor (the live key's rotation asks for a step-up with it).
    const { app } = await enrolTwoFactor(owner.client, ctx.clock);
    const context = screenshotsOnFailure(
      await chrome.browser.newContext({ viewport: { width: 390, height: 844 } }),
      'dashboard-developers',
    );
    const page = await context.newPage();
    const problems = watchProblems(page);
    const base = `${ctx.baseUrl}/dashboard`;

    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').fill('walk@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Code from your authenticator app').fill(await app.code());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Walk Shop' }).waitFor();
    await page.goto(`${base}/developers`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await expectNoAxeViolations(page, 'developers');

    // A restricted key, shown once; it reads but cannot create.
    await page.getByRole('checkbox', { name: 'transactions:read' }).check();
    await page.getByRole('button', { name: 'Create restricted key' }).click();
    const keyDialog = page.getByRole('dialog', { name: 'New restricted API key' });
    const restricted = (await keyDialog.getByTestId('secret').textContent())!;
    expect(restricted).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
    await expectNoAxeViolations(page, 'restricted key dialog');
    await keyDialog.getByRole('button', { name: 'I have saved it' }).click();
    await keyDialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    const read = await http('GET', `${ctx.baseUrl}/api/v1/transactions/SV_none`, { headers: { authorization: `Bearer ${restricted}` } });
    expect(read.status).toBe(404);
    const create = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${restricted}` },
      body: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    expect(create.status).toBe(403);

    // The live key rotated, after its dialog (what happens, and the step-up): the old one's 24 h
    // overlap is counted down.
    await page.getByRole('button', { name: 'Rotate the live key' }).click();
    const confirmIt = page.getByRole('dialog', { name: 'Rotate the live key?' });
    await confirmIt.getByLabel('Your password').fill(PASSWORD);
    await confirmIt.getByLabel('Code from your authenticator app').fill(await app.code());
    await confirmIt.getByRole('button', { name: 'Rotate the live key' }).click();
    await confirmIt.waitFor({ state: 'detached' });
    const rotated = page.getByRole('dialog', { name: 'New live API key' });
    await rotated.getByRole('button', { name: 'I have saved it' }).click();
    await expect
      .poll(() =>
        page
          .locator('tbody')
          .getByText(/^stops in 2[34] h \d\d min$/)
          .count(),
      )
      .toBe(1);

    // An endpoint for completed payments only; its secret shown once.
    const url = `${receiver.url}/walk`;
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByRole('checkbox', { name: 'payment.completed' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretDialog = page.getByRole('dialog', { name: 'Signing secret' });
    const secret = (await secretDialog.getByTestId('secret').textContent())!;
    await secretDialog.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByText(`Sends payment.completed.`).waitFor();

    // A test event arrives, signed with that secret.
    await page.getByRole('button', { name: `Send a test event to ${url}` }).click();
    await page.getByRole('status').filter({ hasText: 'A test event is on its way' }).waitFor();
    await eventually(
      async () => receiver.received.length,
      (n) => n === 1,
    );
    const first = receiver.received[0]!;
    expect(verifyWebhook(first.rawBody, first.headers['svc-signature'], secret)).toEqual({ ok: true });
    expect(first.body.event).toBe('webhook.test');
    await expectNoAxeViolations(page, 'developers with an endpoint');

    // The delivery log: the attempt's status code, then a resend.
    await page.getByRole('link', { name: /^Delivery log/ }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await expect.poll(() => page.getByTestId('delivery-status').first().textContent()).toBe('succeeded');
    expect(await page.getByTestId('delivery').first().textContent()).toContain('200 in');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No delivery matches.').waitFor();
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByLabel('Event type').selectOption('webhook.test');
    await expect.poll(() => page.getByTestId('delivery').count()).toBe(1);
    await expectNoAxeViolations(page, 'delivery log');
    await page.getByRole('button', { name: `Resend webhook.test to ${url}` }).click();
    await eventually(
      async () => receiver.received.length,
      (n) => n === 2,
    );
    expect(receiver.received[1]!.body.eventId).toBe(first.body.eventId);
    expect(verifyWebhook(receiver.received[1]!.rawBody, receiver.received[1]!.headers['svc-signature'], secret)).toEqual({ ok: true });
    await page.getByLabel('Status').selectOption('');
    // Both attempts listed, the second ended: it is listed from its start, while the status is still pending.
    const newest = page.getByTestId('delivery').first();
    await expect
      .poll(async () => [await newest.locator('li').count(), await page.getByTestId('delivery-status').first().textContent()])
      .toEqual([2, 'succeeded']);

    // The request log shows the restricted key's two calls.
    await page.goto(`${base}/developers/requests`);
    await page.getByRole('heading', { name: 'Request log' }).waitFor();
    await expect.poll(() => page.getByTestId('request').count()).toBeGreaterThanOrEqual(2);
    await expectNoAxeViolations(page, 'request log');

    // Revoking asks first (a dialog), then the key is refused at once.
    await page.goto(`${base}/developers`);
    await page.getByRole('button', { name: `Revoke the key ending ${restricted.slice(-4)}` }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke this key?' });
    await expectNoAxeViolations(page, 'revoke dialog');
    await confirm.getByRole('button', { name: 'Revoke the key' }).click();
    await page.getByText(/^revoked /).waitFor();
    expect(
      (await http('GET', `${ctx.baseUrl}/api/v1/transactions/SV_none`, { headers: { authorization: `Bearer ${restricted}` } })).status,
    ).toBe(401);

    await page.setViewportSize({ width: 1280, height: 800 });
    await expectNoAxeViolations(page, 'developers, desktop');
    await page.goto(`${base}/developers/deliveries`);
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await expectNoAxeViolations(page, 'delivery log, desktop');
    // The owner's other pages: the team (with an invitation sent), the audit log, account security.
    await page.goto(`${base}/team`);
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.getByLabel('Email address to invite').fill('walk-dev@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByRole('status').filter({ hasText: 'Invitation sent to walk-dev@example.com.' }).waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Pending invitations, scrollable' }).locator('tbody tr').count()).toBe(1);
    await expectNoAxeViolations(page, 'team');
    await page.goto(`${base}/audit-log`);
    await page.getByRole('link', { name: 'Download the audit log as CSV' }).waitFor();
    await expect.poll(() => page.getByText('invitation.sent').count()).toBe(1);
    await expectNoAxeViolations(page, 'audit log');
    await page.goto(`${base}/security`);
    await page.getByRole('button', { name: 'Turn off two-factor authentication' }).waitFor();
    await expectNoAxeViolations(page, 'account security, on');

    // The one console line: the sign-in's first answer (403, a code is needed) as a failed load.
    expect(problems).toEqual([expect.stringMatching(/status of 403/)]);
    await context.close();
  });
});
