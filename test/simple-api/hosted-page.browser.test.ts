import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness';
import { ARTIFACTS, useBrowser } from '../support/browser';
import { http } from '../support/http';
import { expectAccessible } from '../support/axe';

// A customer in headless Chromium on the simple API's hosted page: picks a crypto rail, sees the QR
// code and address, pays (the sandbox's test helper sends the crypto), and the page follows the status.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chrome = useBrowser();

async function checkout() {
  const res = await http('POST', `${ctx.baseUrl}/api/checkout`, {
    body: {
      fiat_amount: 25,
      fiat_currency: 'EUR',
      success_url: 'https://shop.example/thanks',
      customer: {
        wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
        crypto_currency: 'USDC',
        crypto_currency_network: 'POLYGON',
      },
    },
  });
  expect(res.status).toBe(201);
  return res.json.data as { transaction_code: string; checkout_url: string };
}

describe('the simple hosted page in Chromium', () => {
  it('shows a QR code and address for a crypto rail and follows the order to settled', async () => {
    const order = await checkout();
    const page = await chrome.browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));

    const response = await page.goto(order.checkout_url);
    expect(response!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response!.headers()['x-frame-options']).toBe('DENY');
    expect(await page.locator('#amount').textContent()).toBe('25.00');
    expect(await page.locator('#amount-usd').textContent()).toBe('$27.00');
    // The shop the customer pays, by the site it returns to (a simple order has no merchant account).
    expect(await page.locator('#merchant').textContent()).toBe('shop.example');
    expect(await page.locator('#status-title').textContent()).toBe('Choose how to pay');
    expect(await page.locator('#rail-card').count()).toBe(1);
    await expectAccessible(page, 'simple page, choosing');

    await page.click('#rail-usdt_tron');
    await page.locator('#crypto-instructions').waitFor();
    const address = (await page.locator('#deposit-address').textContent())!;
    expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(await page.locator('#deposit-amount').textContent()).toBe('27.00');
    expect(await page.locator('#deposit-asset').textContent()).toBe('USDT');
    expect(await page.locator('#deposit-network').textContent()).toBe('Tron');
    const qr = page.locator('#deposit-qr svg');
    expect(await qr.count()).toBe(1);
    const box = await qr.boundingBox();
    expect(box!.width).toBeGreaterThan(100);
    // The QR code carries the whole transfer for a Tron wallet: recipient, amount and the USDT contract.
    expect(await page.locator('#deposit-qr').getAttribute('data-uri')).toBe(
      `tron:${address}?amount=27&token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`,
    );
    await expectAccessible(page, 'simple page, crypto instructions');
    await page.screenshot({ path: path.join(ARTIFACTS, 'simple-page-crypto.png'), fullPage: true });

    // The same address from the API: one deposit per order and rail.
    const link = await http('GET', `${ctx.baseUrl}/api/payment_link?transaction_code=${order.transaction_code}&payment_method=usdt_tron`);
    expect(link.json.data.address).toBe(address);

    const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
      body: { reference: order.transaction_code, outcome: 'succeeded' },
    });
    expect(paid.status).toBe(200);
    await page.locator('#status-title', { hasText: 'Payment received' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('#return-link').getAttribute('href')).toBe('https://shop.example/thanks');
    expect(await page.locator('#crypto-instructions').count()).toBe(0);
    await expectAccessible(page, 'simple page, settled');
    await page.screenshot({ path: path.join(ARTIFACTS, 'simple-page-settled.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('sends a fiat rail to the provider page', async () => {
    const order = await checkout();
    const page = await chrome.browser.newPage();
    await page.goto(order.checkout_url);
    await page.click('#rail-card');
    await page.waitForURL((url) => url.toString().startsWith(`${ctx.config.providers.sandbox.url}/checkout/sbx_pay_`));
    await page.close();
  });

  it('answers 404 for an unknown transaction code', async () => {
    const res = await http('GET', `${ctx.baseUrl}/pay/${crypto.randomUUID()}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
});
