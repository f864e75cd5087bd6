import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectNoAxeViolations } from '../support/axe';
import { ARTIFACTS, openSection, screenshotsOnFailure, watchProblems, useBrowser } from '../support/browser';
import { adminHeaders, useTestApp } from '../support/harness';
import { http } from '../support/http';
import { useMailSink } from '../support/mail';
import { Authenticator } from '../support/dashboard';

// A new merchant in real headless Chromium: sign-up → the verification mail, read in
// the development mailbox the local SMTP sink fills → the operator's approval → the live key, shown
// once. axe-core finds nothing at all on any page, light or dark; the strict CSP logs no refusal.
const mailbox = useMailSink();
const ctx = useTestApp(mailbox.env, { listen: true });
const chrome = useBrowser();

describe('the merchant dashboard in Chromium', { timeout: 180_000 }, () => {
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

    // An owner reveals a key only with a second factor: the step-up dialog says so and leads to
    // Account security; enrol one there, with a code computed from the key the page shows, as an
    // authenticator app would.
    await page.getByRole('button', { name: 'Reveal the live key' }).click();
    const confirmIt = page.getByRole('dialog', { name: 'Confirm it is you' });
    await confirmIt.getByText('Owners turn on two-factor authentication before they reveal the live key.').waitFor();
    await expectNoAxeViolations(page, 'step-up, two-factor first');
    await confirmIt.getByRole('link', { name: 'Turn it on' }).click();
    await page.getByRole('heading', { name: 'Account security' }).waitFor();
    await expectNoAxeViolations(page, 'account security, off');
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    const app = new Authenticator((await page.getByTestId('totp-secret').textContent())!, ctx.clock);
    await page.getByRole('img', { name: 'QR code of your authenticator key' }).waitFor();
    await expectNoAxeViolations(page, 'two-factor enrolment');
    await page.getByLabel('The 6-digit code your app shows').fill(await app.code());
    await page.getByRole('button', { name: 'Confirm and turn on' }).click();
    await expect.poll(() => page.getByTestId('recovery-codes').locator('li').count()).toBe(10);
    await expectNoAxeViolations(page, 'recovery codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByRole('button', { name: 'Turn off two-factor authentication' }).waitFor();
    await openSection(page, 'Overview');

    // The step-up: the password and a fresh code, in the dialog the button opens.
    await page.getByRole('button', { name: 'Reveal the live key' }).click();
    await confirmIt.getByLabel('Your password').waitFor();
    await expectNoAxeViolations(page, 'step-up');
    await confirmIt.getByLabel('Your password').fill('a long enough password');
    await confirmIt.getByLabel('Code from your authenticator app').fill(await app.code());
    await confirmIt.getByRole('button', { name: 'Confirm it is you' }).click();
    await confirmIt.waitFor({ state: 'detached' });
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

    await openSection(page, 'Developers');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await expectNoAxeViolations(page, 'developers');
    // A webhook endpoint (the step-up still counts), its signing secret shown once, then rolled after
    // a confirmation (shown once again).
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = page.getByRole('dialog', { name: 'Signing secret' });
    expect(await secret.getByTestId('secret').textContent()).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await secret.getByRole('button', { name: 'I have saved it' }).click();
    await secret.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Roll the signing secret of http://127.0.0.1:9/hooks' }).click();
    await page.getByRole('dialog', { name: 'Roll the signing secret?' }).getByRole('button', { name: 'Roll the signing secret' }).click();
    expect(await secret.getByTestId('secret').textContent()).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await expectNoAxeViolations(page, 'signing secret dialog');
    await secret.getByRole('button', { name: 'I have saved it' }).click();
    // A wide screen too.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectNoAxeViolations(page, 'developers, desktop');

    expect(problems).toEqual([]);
    // Signing in again asks for a code once the password is right; a code used once is refused after.
    // Chromium logs each of those answers as a failed load (403 twice: a code is needed; 401: the
    // replayed code): the only console lines allowed.
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('baker@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const codeField = page.getByLabel('Code from your authenticator app');
    await codeField.waitFor();
    await expectNoAxeViolations(page, 'sign-in, code asked');
    const code = await app.code();
    await codeField.fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Browser Bakery' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill('baker@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await codeField.fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('This code was used already: wait for the next one.').waitFor();
    expect(await page.getByRole('heading', { name: 'Sign in' }).count()).toBe(1);

    expect(problems).toEqual([
      expect.stringMatching(/status of 403/),
      expect.stringMatching(/status of 403/),
      expect.stringMatching(/status of 401/),
    ]);
    await context.close();
  });
});
