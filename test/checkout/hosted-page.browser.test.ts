import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { expectAccessible } from '../support/axe';
import { ARTIFACTS, useBrowser } from '../support/browser';
import { eventually, http } from '../support/http';

// A customer in real headless Chromium: our hosted page → the sandbox's payment page → back to our
// page, which is right on first render, updates itself (with or without JavaScript) and sends the
// customer on to the merchant. axe-core finds nothing serious on any state, light or dark.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chrome = useBrowser();
const SUCCESS = 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}';

async function openSession(body: Record<string, unknown> = {}) {
  const m = await createApprovedMerchant(ctx.app, { name: 'Browser Shop' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', successUrl: SUCCESS, cancelUrl: 'https://shop.example/cart', ...body },
  });
  expect(res.status).toBe(201);
  return res.json.checkoutSession as { id: string; checkoutUrl: string };
}

function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return problems;
}

const statusOf = async (id: string) => (await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}`)).json.status as string;

describe('the hosted checkout page in Chromium', () => {
  it('pays through the sandbox, says so on the first render back, and redirects to the success URL with the session id', async () => {
    const session = await openSession();
    const page = await chrome.browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = watchProblems(page);

    await page.goto(session.checkoutUrl);
    expect(await page.locator('#amount').textContent()).toBe('25.00');
    expect(await page.locator('.merchant').textContent()).toBe('Browser Shop');
    expect(await page.locator('#destination').textContent()).toBe('USDC on Polygon');
    expect(await page.locator('#pay-button').textContent()).toBe('Pay $25.00');
    // The countdown starts from what is left and ticks.
    const first = await page.locator('#countdown').textContent();
    expect(first).toMatch(/^\d+:\d{2}:\d{2}$|^\d+:\d{2}$/);
    await expect.poll(() => page.locator('#countdown').textContent(), { timeout: 5000 }).not.toBe(first);
    await expectAccessible(page, 'pending');
    await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-page-pending.png'), fullPage: true });

    await page.click('#pay-button');
    await page.waitForURL((url) => url.toString().startsWith(ctx.config.providers.sandbox.url));
    // The sandbox provider's own page is held to the same standard.
    await expectAccessible(page, 'the sandbox provider’s payment page');
    // The first document our server sends back after the provider's page: never "Ready to pay".
    const back = page.waitForResponse((r) => r.url() === session.checkoutUrl && r.request().method() === 'GET');
    const leaving = page.waitForRequest((req) => req.url() === `https://shop.example/thanks?session=${session.id}`, { timeout: 30_000 });
    await page.getByRole('button', { name: /^Pay / }).click();
    const firstRender = await (await back).text();
    expect(firstRender).not.toContain('Ready to pay');
    expect(firstRender).toMatch(/Confirming your payment|Payment in progress|Payment received/);
    expect(firstRender).not.toContain('id="wallet-button"');

    await leaving;
    expect(await statusOf(session.id)).toBe('completed');
    expect(problems.filter((p) => !p.includes('ERR_NAME_NOT_RESOLVED'))).toEqual([]);
    await page.close();
  });

  it('updates and redirects without JavaScript (meta refresh while open), and shows no countdown once finished', async () => {
    const session = await openSession();
    const context = await chrome.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(session.checkoutUrl);
    expect(await page.locator('#countdown').count()).toBe(1);
    expect(await page.locator('button[data-copy]:visible').count()).toBe(0);
    await page.click('#pay-button');
    await page.waitForURL((url) => url.toString().startsWith(ctx.config.providers.sandbox.url));
    const leaving = page.waitForRequest((req) => req.url() === `https://shop.example/thanks?session=${session.id}`, { timeout: 30_000 });
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL((url) => url.toString().startsWith(session.checkoutUrl));
    // Only <noscript>'s refresh can move this page on.
    await leaving;
    await context.close();

    const finished = await http('GET', session.checkoutUrl);
    expect(finished.text).toContain('Payment received');
    expect(finished.text).not.toContain('id="countdown"');
    expect(finished.text).toContain(
      `<noscript><meta http-equiv="refresh" content="3;url=https://shop.example/thanks?session=${session.id}"></noscript>`,
    );
  });

  it('offers the wallet transfer: an EIP-681 QR code with token, chain and amount, and copy buttons', async () => {
    const session = await openSession();
    const context = await chrome.browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.baseUrl });
    const page = await context.newPage();
    await page.goto(session.checkoutUrl);
    await page.click('#wallet-button');
    await page.locator('#wallet-instructions').waitFor();
    const uri = (await page.locator('#deposit-qr').getAttribute('data-uri'))!;
    const address = await page.locator('#deposit-address').inputValue();
    expect(uri).toMatch(new RegExp(`^ethereum:0x[0-9a-fA-F]{40}@\\d+/transfer\\?address=${address}&uint256=\\d+$`));
    expect(await page.locator('#deposit-qr svg').count()).toBe(1);

    await page.click('button[data-copy="deposit-address"]');
    // Runs in the page; this file is compiled without the DOM's types.
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
      ),
    ).toBe(address);
    expect(await page.locator('button[data-copy="deposit-address"]').textContent()).toBe('Copied');
    await expectAccessible(page, 'wallet instructions');
    await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-page-wallet.png'), fullPage: true });
    await context.close();
  });

  it('speaks the customer’s language (Accept-Language, or the session’s locale), with amounts and dates in its conventions', async () => {
    const session = await openSession();
    const german = await chrome.browser.newContext({ locale: 'de-DE' });
    const page = await german.newPage();
    await page.goto(session.checkoutUrl);
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.locator('#status-title').textContent()).toBe('Bereit zum Bezahlen');
    expect((await page.locator('#pay-button').textContent())!.replace(/\s/g, ' ')).toBe('25,00 $ bezahlen');
    expect(await page.locator('#destination').textContent()).toBe('USDC auf Polygon');
    await expectAccessible(page, 'pending (de)');

    const french = await openSession({ locale: 'fr', amount: 1234.5, currency: 'EUR' });
    await page.goto(french.checkoutUrl);
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    expect(await page.locator('#status-title').textContent()).toBe('Prêt à payer');
    expect((await page.locator('#amount').textContent())!.replace(/\s/g, ' ')).toBe('1 234,50');
    expect(await page.locator('#countdown').getAttribute('title')).toMatch(/UTC/);
    await german.close();

    for (const [lang, title] of [
      ['es', 'Listo para pagar'],
      ['pt-BR,pt;q=0.9', 'Pronto para pagar'],
      ['en-GB', 'Ready to pay'],
    ] as const) {
      const res = await http('GET', session.checkoutUrl, { headers: { 'accept-language': lang } });
      expect(res.text, lang).toContain(title);
    }
  });

  it('has no serious accessibility findings when finished, canceled or on the payment link page', async () => {
    const page = await chrome.browser.newPage();
    const paid = await openSession({ successUrl: undefined });
    expect(
      (await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: paid.id, outcome: 'succeeded' } }))
        .status,
    ).toBe(200);
    await eventually(
      () => statusOf(paid.id),
      (s) => s === 'completed',
      20_000,
      'completed',
    );
    await page.goto(paid.checkoutUrl);
    expect(await page.locator('#status-title').textContent()).toBe('Payment received');
    expect(await page.locator('#countdown').count()).toBe(0);
    await expectAccessible(page, 'completed');

    const declined = await openSession();
    expect(
      (
        await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
          body: { reference: declined.id, outcome: 'declined' },
        })
      ).status,
    ).toBe(200);
    // A decline ends nothing: the same page offers another attempt and the wallet.
    await eventually(
      async () => {
        await page.goto(declined.checkoutUrl);
        return page.locator('#status-title').textContent();
      },
      (title) => title === 'Payment declined',
      20_000,
      'the decline on the page',
    );
    expect(await statusOf(declined.id)).toBe('pending');
    expect(await page.locator('#pay-button').textContent()).toBe('Try again');
    expect(await page.locator('#wallet-button').isVisible()).toBe(true);
    await expectAccessible(page, 'declined');
    // Try again: the provider's page takes a second attempt, and the customer comes back paid.
    await page.click('#pay-button');
    await page.waitForURL(/\/checkout\/sbx_pay_/);
    await page.click('button.pay');
    await eventually(
      () => statusOf(declined.id),
      (s) => s === 'completed',
      20_000,
      'completed after the retry',
    );

    const m = await createApprovedMerchant(ctx.app, { name: 'Link Shop' });
    const link = await http('POST', `${ctx.baseUrl}/api/v1/payment-links`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 10, currency: 'USD', description: 'A poster' },
    });
    expect(link.status).toBe(201);
    await page.goto(link.json.paymentLink.url as string);
    await expectAccessible(page, 'payment link');
    const german = await http('GET', link.json.paymentLink.url as string, { headers: { 'accept-language': 'de-CH, de;q=0.9' } });
    expect(german.text).toContain('<html lang="de">');
    expect(german.text).toContain('<label for="country">Ihr Land</label>');
    expect(german.text).toContain('>Vereinigte Staaten</option>');
    await page.close();
  });

  // The cancel goes through the session's run (a workflow update) before the redirect: on a loaded
  // machine that alone can take seconds, as the paid redirects above allow for.
  it('cannot be framed and sends the customer back on cancel', { timeout: 60_000 }, async () => {
    const session = await openSession();
    const page = await chrome.browser.newPage();
    const response = await page.goto(session.checkoutUrl);
    expect(response!.headers()['x-frame-options']).toBe('DENY');
    expect(response!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");

    // The cancel URL's shop does not exist here: the browser's attempt to go there is what we check.
    const leaving = page.waitForRequest((req) => req.url() === 'https://shop.example/cart', { timeout: 45_000 });
    await page.click('#cancel-button');
    await leaving;
    expect(await statusOf(session.id)).toBe('canceled');
    await page.close();
  });
});
