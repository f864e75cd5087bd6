import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe';
import { useBrowser } from '../support/browser';
import { useTestApp } from '../support/harness';

// /docs (Swagger UI on our OpenAPI document) as a merchant's developer opens it in
// Chromium: every operation listed, and axe-core finds nothing serious or critical in light or dark
// mode (it found 3 critical and 98 serious with the stock top bar and colours).
const ctx = useTestApp({}, { listen: true });
const chrome = useBrowser();

describe('/docs in Chromium', () => {
  it('lists the operations, with 0 serious or critical accessibility findings in light and dark mode', async () => {
    const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(`${ctx.baseUrl}/docs`);
    await page.waitForSelector('#operations-payments-getPaymentSession', { timeout: 20_000 });
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await expectAccessible(page, '/docs');

    // An operation opened, as a reader does: still nothing serious or critical.
    await page.locator('#operations-payments-getPaymentSession .opblock-summary-control').click();
    await page.waitForSelector('#operations-payments-getPaymentSession .responses-wrapper');
    await expectAccessible(page, '/docs with an operation open');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
