import { describe, expect, it } from 'vitest';
import { expectNoAxeViolations } from '../support/axe';
import { screenshotsOnFailure, watchProblems, useBrowser } from '../support/browser';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';
import { signedUpOwner } from '../support/dashboard';

// In real headless Chromium: a person who forgot their password asks on the sign-in page,
// opens the link from the development mailbox, chooses a new password and signs in with it; then
// changes it again on the account security page and signs in with that one.
const mailbox = useMailSink();
const ctx = useTestApp(mailbox.env, { listen: true });
const chrome = useBrowser();

describe('dashboard passwords in Chromium', { timeout: 180_000 }, () => {
  it('resets a forgotten password from the mailed link, signs in with it, and changes it on the security page', async () => {
    await signedUpOwner(ctx.app, mailbox, 'walker@example.com', 'Walking Shop');
    const context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: { width: 390, height: 844 } }), 'dashboard-password');
    const page = await context.newPage();
    const problems = watchProblems(page);
    const base = `${ctx.baseUrl}/dashboard`;

    await page.goto(`${base}/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password' }).waitFor();
    await expectNoAxeViolations(page, 'forgot password');
    await page.getByLabel('Email').fill('walker@example.com');
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await page.getByText('If this address has an account, we have sent it a link').waitFor();
    await expectNoAxeViolations(page, 'forgot password, sent');

    // The mail, as the local SMTP sink received it, in the development mailbox.
    await mailbox.waitFor('walker@example.com', /Reset your dashboard password/);
    await page.goto(`${base}/dev/mail`);
    await page.locator('a[href*="/dashboard/reset-password?token="]').first().click();
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await expectNoAxeViolations(page, 'reset password');
    await page.getByLabel('New password').fill('a reset browser password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('Your new password is in force').waitFor();
    await expectNoAxeViolations(page, 'reset password, done');
    await page.getByRole('link', { name: 'Sign in' }).first().click();

    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('walker@example.com');
    await page.getByLabel('Password').fill('a reset browser password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Walking Shop' }).waitFor();
    await mailbox.waitFor('walker@example.com', /password was changed/);

    // The signed-in change, on the account security page.
    await page.goto(`${base}/security`);
    await page.getByRole('heading', { name: 'Account security' }).waitFor();
    const form = page.getByRole('form', { name: 'Password' });
    await form.getByLabel('Current password').fill('a reset browser password');
    await form.getByLabel('New password').fill('a changed browser password');
    await expectNoAxeViolations(page, 'account security, password');
    await form.getByRole('button', { name: 'Change the password' }).click();
    await page.getByText('Your password is changed.').waitFor();
    await expectNoAxeViolations(page, 'account security, password changed');
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectNoAxeViolations(page, 'account security, desktop');

    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('walker@example.com');
    await page.getByLabel('Password').fill('a changed browser password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Walking Shop' }).waitFor();

    expect(problems).toEqual([]);
    await context.close();
  });
});
