import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectNoAxeViolations } from '../support/axe';
import { ARTIFACTS, screenshotsOnFailure, watchProblems, useBrowser } from '../support/browser';
import { adminHeaders, useTestApp } from '../support/harness';
import { http } from '../support/http';
import { useMailSink } from '../support/mail';

// A new merchant in real headless Chromium (decisions §14): sign-up → the verification mail, read in
// the development mailbox the local SMTP sink fills → the operator's approval → the live key, shown
// once. axe-core finds nothing at all on any page, light or dark; the strict CSP logs no refusal.
const mailbox = useMailSink();
const ctx = useTestApp(mailbox.env, { listen: true });
const chrome = useBrowser();

describe('the merchant dashboard in Chromium', () => {
  it('signs up, confirms the email from the mailbox, is approved, and is shown the live key once', async () => {
    const context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: { width: 390, height: 844 } }), 'dashboard');
    const page = await context.newPage();
    const problems = watchProblems(page);
    const base = `${ctx.baseUrl}/dashboard`;

    await page.goto(`${base}/sign-up`);
    await expect.poll(() => page.title()).toBe('Create an account · Dashboard');
    await expectNoAxeViolations(page, 'sign-up');
    await page.getByLabel('Business name').fill('Browser Bakery');
    await page.getByLabel('Email').fill('baker@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await expectNoAxeViolations(page, 'sign-up sent');

    // The verification mail, as the SMTP sink received it, in the development mailbox.
    await mailbox.waitFor('baker@example.com', /Confirm your email/);
    await page.goto(`${base}/dev/mail`);
    await expectNoAxeViolations(page, 'development mailbox');
    await page.locator('a[href*="/dashboard/verify-email?token="]').first().click();
    await page.getByRole('heading', { name: 'Confirm your email' }).waitFor();
    await expectNoAxeViolations(page, 'verify email');
    await page.getByRole('button', { name: 'Confirm my email address' }).click();
    await page.getByText('Your email address is confirmed.').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).first().click();

    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectNoAxeViolations(page, 'sign-in');
    await page.getByLabel('Email').fill('baker@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Browser Bakery' }).waitFor();
    expect(await page.getByTestId('status').textContent()).toMatch(/^Waiting for review/);
    await expectNoAxeViolations(page, 'overview, pending');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'svc_dash_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/dashboard' });

    // The operator approves (the admin route `npm run ops -- merchants approve` calls).
    const merchantId = (await page.locator('dd code').first().textContent())!;
    const approval = await http('POST', `${ctx.baseUrl}/admin/v1/merchants/${merchantId}/approve`, { headers: adminHeaders });
    expect(approval.status).toBe(200);

    await page.reload();
    await page.getByRole('heading', { name: 'Your live API key' }).waitFor();
    expect(await page.getByTestId('status').textContent()).toMatch(/^Approved/);
    await expectNoAxeViolations(page, 'overview, key waiting');
    await page.getByRole('button', { name: 'Reveal the live key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Live API key' });
    await dialog.waitFor();
    expect(await dialog.getByTestId('secret').textContent()).toBe(approval.json.apiKey);
    await expectNoAxeViolations(page, 'live key dialog');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-live-key.png'), fullPage: true });
    await dialog.getByRole('button', { name: 'I have saved it' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Once: after a reload the key is not offered again.
    await page.reload();
    await page.getByRole('heading', { name: 'Browser Bakery' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Your live API key' }).count()).toBe(0);

    await page.getByRole('link', { name: /^Developers/ }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await expectNoAxeViolations(page, 'developers');
    // A webhook endpoint, its signing secret shown once, then rolled (shown once again).
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = page.getByRole('dialog', { name: 'Signing secret' });
    expect(await secret.getByTestId('secret').textContent()).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await secret.getByRole('button', { name: 'I have saved it' }).click();
    await secret.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Roll the signing secret of http://127.0.0.1:9/hooks' }).click();
    expect(await secret.getByTestId('secret').textContent()).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await expectNoAxeViolations(page, 'signing secret dialog');
    await secret.getByRole('button', { name: 'I have saved it' }).click();
    // A wide screen too.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectNoAxeViolations(page, 'developers, desktop');

    expect(problems).toEqual([]);
    await context.close();
  });
});
