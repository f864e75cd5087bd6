import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { useBrowser } from '../support/browser';
import { http } from '../support/http';

// Every customer URL is a GET that reloads. A form post answers a
// browser with 303 to a GET, so a reload, a bookmark, a restored tab or a meta refresh reads the page
// as it stands; what an action could not do is said once, on that page.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chrome = useBrowser();
const PHONE = { width: 390, height: 844 };
const asBrowser = { accept: 'text/html,application/xhtml+xml' };

async function openSession(body: Record<string, unknown> = {}) {
  const m = await createApprovedMerchant(ctx.app, { name: 'Reload Shop' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', ...body },
  });
  expect(res.status).toBe(201);
  return { ...(res.json.checkoutSession as { id: string; checkoutUrl: string }), apiKey: m.apiKey };
}

describe('customer URLs are GETs that reload', () => {
  it('shows the wallet transfer at /pay/<id>/wallet: after the button, on reload, in a restored tab and without JavaScript', async () => {
    const session = await openSession();
    const context = await chrome.browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(session.checkoutUrl);
    await page.click('#wallet-button');
    await page.waitForURL(`${session.checkoutUrl}/wallet`);
    const address = await page.locator('#deposit-address').inputValue();
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    // A reload is a GET of the same page: the same transfer, no refusal, no resubmission.
    const reloaded = await page.reload();
    expect(reloaded!.status()).toBe(200);
    expect(reloaded!.request().method()).toBe('GET');
    expect(await page.locator('#deposit-address').inputValue()).toBe(address);
    expect(await page.locator('.notice').count()).toBe(0);
    await context.close();

    // A bookmarked or restored tab, without JavaScript: the same page, refreshed by a meta refresh of itself.
    const plain = await chrome.browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const restored = await plain.newPage();
    const response = await restored.goto(`${session.checkoutUrl}/wallet`);
    expect(response!.status()).toBe(200);
    expect(await restored.locator('#deposit-address').inputValue()).toBe(address);
    const refresh = await restored.locator('meta[http-equiv="refresh"]').getAttribute('content');
    expect(refresh).toMatch(/^\d+$/);
    await plain.close();
  });

  it('takes a refused Pay back to /pay/<id>, says why once, and the reload shows the state alone', async () => {
    const session = await openSession();
    // A tab without JavaScript: with it, the live stream would reload the page on the cancel and take
    // the Pay button away before the click (the race this test lost under load).
    const context = await chrome.browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(session.checkoutUrl);
    // Another tab cancels meanwhile.
    expect((await http('POST', `${ctx.baseUrl}/pay/${session.id}/cancel`)).status).toBe(303);

    await page.click('#pay-button');
    await page.waitForURL(session.checkoutUrl);
    expect(await page.locator('#status-title').textContent()).toBe('Checkout canceled');
    expect(await page.locator('.notice').textContent()).toBe('This checkout can no longer be paid.');
    await page.reload();
    expect(await page.locator('#status-title').textContent()).toBe('Checkout canceled');
    expect(await page.locator('.notice').count()).toBe(0);
    await context.close();
  });

  it('sends GETs of the action URLs (an old history entry) to their page', async () => {
    const session = await openSession();
    for (const action of ['start', 'cancel']) {
      const res = await http('GET', `${session.checkoutUrl}/${action}`);
      expect(res.status, action).toBe(303);
      expect(res.headers.get('location')).toBe(`/pay/${session.id}`);
    }
    // Nothing was done by them.
    expect((await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}`)).json.status).toBe('pending');
  });

  it('answers a refused link payment from a browser with 303 to the link page, which keeps the country and says why once', async () => {
    const m = await createApprovedMerchant(ctx.app, { name: 'Link Shop' });
    const created = await http('POST', `${ctx.baseUrl}/api/v1/payment-links`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 10, currency: 'USD' },
    });
    expect(created.status).toBe(201);
    const linkId = created.json.paymentLink.id as string;
    // The kill switch refuses the payment of a country the link serves.
    expect(
      (await http('PUT', `${ctx.baseUrl}/admin/v1/settings/payments`, { headers: adminHeaders, body: { enabled: false } })).status,
    ).toBe(200);
    try {
      const refused = await fetch(`${ctx.baseUrl}/link/${linkId}/pay`, {
        method: 'POST',
        headers: { ...asBrowser, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'country=US',
        redirect: 'manual',
      });
      expect(refused.status).toBe(303);
      expect(refused.headers.get('location')).toBe(`/link/${linkId}?country=US`);
      // The page says it in its state, once: no notice repeats it.
      expect(refused.headers.get('set-cookie')).toBeNull();
      const paused = await http('GET', `${ctx.baseUrl}/link/${linkId}?country=US`);
      expect(paused.text).toContain('<h2 id="status-title">Payments paused</h2>');
      expect(paused.text).not.toContain('Ready to pay');
      expect(paused.text.match(/temporarily unavailable/g)).toHaveLength(1);
    } finally {
      expect(
        (await http('PUT', `${ctx.baseUrl}/admin/v1/settings/payments`, { headers: adminHeaders, body: { enabled: true } })).status,
      ).toBe(200);
    }
    const refused = await fetch(`${ctx.baseUrl}/link/${linkId}/pay`, {
      method: 'POST',
      headers: { ...asBrowser, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'country=KP',
      redirect: 'manual',
    });
    expect(refused.headers.get('location')).toBe(`/link/${linkId}?country=KP`);
    const cookie = refused.headers.get('set-cookie')!.split(';')[0]!;
    const landed = await http('GET', `${ctx.baseUrl}${refused.headers.get('location')}`, { headers: { cookie } });
    expect(landed.status).toBe(200);
    expect(landed.text).toContain('Payments from this country in USD are not available.');
    expect(landed.headers.get('set-cookie')).toContain('svc_notice=; Path=/link/');
    const again = await http('GET', `${ctx.baseUrl}/link/${linkId}?country=US`);
    expect(again.text).not.toContain('are not available');
    expect(again.text).toContain('<option value="US" selected>');
    expect((await http('GET', `${ctx.baseUrl}/link/${linkId}/pay`)).headers.get('location')).toBe(`/link/${linkId}`);
  });

  it('answers a refused simple-order Pay from a browser with 303 to the order page, which says why once', async () => {
    const created = await http('POST', `${ctx.baseUrl}/api/checkout`, {
      body: {
        fiat_amount: 25,
        fiat_currency: 'EUR',
        customer: {
          wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
          crypto_currency: 'USDC',
          crypto_currency_network: 'POLYGON',
        },
      },
    });
    expect(created.status).toBe(201);
    const code = created.json.data.transaction_code as string;
    const refused = await fetch(`${ctx.baseUrl}/pay/${code}/start`, {
      method: 'POST',
      headers: { ...asBrowser, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payment_method=no_such_rail',
      redirect: 'manual',
    });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe(`/pay/${code}`);
    const cookie = refused.headers.get('set-cookie')!.split(';')[0]!;
    expect((await http('GET', `${ctx.baseUrl}/pay/${code}`, { headers: { cookie } })).text).toContain('Unknown payment method.');
    expect((await http('GET', `${ctx.baseUrl}/pay/${code}`)).text).not.toContain('Unknown payment method.');
    expect((await http('GET', `${ctx.baseUrl}/pay/${code}/start`)).headers.get('location')).toBe(`/pay/${code}`);
  });
});
