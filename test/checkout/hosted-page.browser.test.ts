import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { ARTIFACTS, useBrowser } from '../support/browser';
import { http } from '../support/http';

// A customer in real headless Chromium: our hosted page → the sandbox's payment page → back to our
// page, which updates itself to "Payment received" from the provider's signed callbacks.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chrome = useBrowser();

async function openSession(body: Record<string, unknown> = {}) {
  const m = await createApprovedMerchant(ctx.app, { name: 'Browser Shop' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', successUrl: 'https://shop.example/thanks', cancelUrl: 'https://shop.example/cart', ...body },
  });
  return res.json.checkoutSession as { id: string; checkoutUrl: string };
}

describe('the hosted checkout page in Chromium', () => {
  it('pays through the sandbox and shows the completed payment with the way back to the shop', async () => {
    const session = await openSession();
    const page = await chrome.browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));

    await page.goto(session.checkoutUrl);
    expect(await page.locator('#amount').textContent()).toBe('25.00');
    expect(await page.locator('.merchant').textContent()).toBe('Browser Shop');
    expect(await page.locator('#destination').textContent()).toBe('USDC on Polygon');
    await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-page-pending.png'), fullPage: true });

    await page.click('#pay-button');
    await page.waitForURL((url) => url.toString().startsWith(ctx.config.providers.sandbox.url));
    await page.getByRole('button', { name: /^Pay / }).click();

    await page.waitForURL((url) => url.toString().startsWith(session.checkoutUrl));
    // The page refreshes itself from the public lookup once the callbacks have landed.
    await page.locator('#status-title', { hasText: 'Payment received' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('#return-link').getAttribute('href')).toBe('https://shop.example/thanks');
    expect(await page.locator('#pay-button').count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-page-completed.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('cannot be framed and sends the customer back on cancel', async () => {
    const session = await openSession();
    const page = await chrome.browser.newPage();
    const response = await page.goto(session.checkoutUrl);
    expect(response!.headers()['x-frame-options']).toBe('DENY');
    expect(response!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");

    // The cancel URL's shop does not exist here: the browser's attempt to go there is what we check.
    const leaving = page.waitForRequest((req) => req.url() === 'https://shop.example/cart');
    await page.click('#cancel-button');
    await leaving;
    const status = await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}`);
    expect(status.json.status).toBe('canceled');
    await page.close();
  });
});
