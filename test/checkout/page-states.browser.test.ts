import type { BrowserContext, Page } from 'playwright-core';
import { getAddress } from 'viem';
import { describe, expect, it, vi } from 'vitest';
import { renderCheckoutPage, type CheckoutPageModel } from '../../src/api/hosted/checkout-page';
import { CATALOGUES, pageText } from '../../src/api/hosted/i18n';
import { PAGE_LOCALES } from '../../src/domain/locales';
import { expectAccessible } from '../support/axe';
import { screenshotsOnFailure, useBrowser } from '../support/browser';
import { mint, newPayer, pay, sharedChain } from '../support/chain';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { depositAddressOf } from '../support/proof';

// Each state of the checkout page in two languages, with and without
// JavaScript, on a phone, with 0 serious axe findings; words a customer reads (never "payout"), and
// numbers in the page's language. A failing case leaves a screenshot in test/.artifacts.
// Each walk opens four phones (two languages, with and without JavaScript) and runs axe: minutes on a
// loaded 2-core machine, over the default 30 s.
vi.setConfig({ testTimeout: 120_000 });
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chrome = useBrowser();
const PHONE = { width: 390, height: 844 };

async function openSession(body: Record<string, unknown> = {}, merchantApiKey?: string) {
  const apiKey = merchantApiKey ?? (await createApprovedMerchant(ctx.app, { name: 'Phone Shop' })).apiKey;
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', ...body },
  });
  expect(res.status).toBe(201);
  return { ...(res.json.checkoutSession as { id: string; checkoutUrl: string }), apiKey };
}

const statusOf = async (id: string) => (await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}`)).json.status as string;
const text = (page: Page, selector: string) =>
  page
    .locator(selector)
    .textContent()
    .then((t) => (t ?? '').replace(/\s/g, ' '));

/** A phone in the given language, with or without JavaScript; a screenshot of every page it holds if the test fails. */
async function phone(locale: string, javaScriptEnabled: boolean, name: string): Promise<BrowserContext> {
  const context = await chrome.browser.newContext({ viewport: PHONE, locale, javaScriptEnabled, isMobile: true, hasTouch: true });
  return screenshotsOnFailure(context, `${name}-${locale}-${javaScriptEnabled ? 'js' : 'nojs'}`);
}

interface Expectation {
  title: Record<'en' | 'de', string>;
  countdown: boolean;
  pay: boolean;
  /** The state's words (#status), where they matter. */
  body?: Record<'en' | 'de', RegExp>;
  /** The refund-address form is asked (money is owed back); absent: not asked. */
  refund?: boolean;
}

/** Opens `url` on a phone in English and German, with and without JavaScript, and holds the page to `e`. */
async function expectState(url: string, name: string, e: Expectation) {
  for (const locale of ['en', 'de'] as const) {
    for (const js of [true, false]) {
      const context = await phone(locale, js, name);
      const page = await context.newPage();
      await page.goto(url);
      const label = `${name} (${locale}, ${js ? 'JavaScript' : 'no JavaScript'})`;
      expect(await page.getAttribute('html', 'lang'), label).toBe(locale);
      expect(await text(page, '#status-title'), label).toBe(e.title[locale]);
      expect(await page.locator('#countdown').count(), label).toBe(e.countdown ? 1 : 0);
      expect(await page.locator('#pay-button').count(), label).toBe(e.pay ? 1 : 0);
      if (e.body) expect(await text(page, '#status'), label).toMatch(e.body[locale]);
      expect(await page.locator('#refund-address').count(), label).toBe(e.refund ? 1 : 0);
      // Without JavaScript the page refreshes itself; axe runs scripts, so it checks the scripted tab.
      if (js) await expectAccessible(page, label);
      await context.close();
    }
  }
}

describe('each state of the checkout page on a phone', () => {
  it('ready to pay, then the wallet transfer at its own URL', async () => {
    const session = await openSession();
    await expectState(session.checkoutUrl, 'pending', {
      title: { en: 'Ready to pay', de: 'Bereit zum Bezahlen' },
      countdown: true,
      pay: true,
    });
    expect((await http('POST', `${session.checkoutUrl}/wallet`, { headers: { accept: 'text/html' } })).status).toBe(303);
    // The wallet view offers the wallet rail only: no provider's Pay (its way back is a link to this page).
    await expectState(`${session.checkoutUrl}/wallet`, 'wallet', {
      title: { en: 'Pay from your wallet', de: 'Aus Ihrer Wallet bezahlen' },
      countdown: true,
      pay: false,
    });
  });

  it('payments paused by the kill switch: said once, no "ready to pay", no clock', async () => {
    const session = await openSession();
    expect(
      (await http('PUT', `${ctx.baseUrl}/admin/v1/settings/payments`, { headers: adminHeaders, body: { enabled: false } })).status,
    ).toBe(200);
    try {
      await expectState(session.checkoutUrl, 'paused', {
        title: { en: 'Payments paused', de: 'Zahlungen pausiert' },
        countdown: false,
        pay: false,
      });
      const page = await http('GET', session.checkoutUrl);
      expect(page.text).not.toContain('Ready to pay');
      expect(page.text.match(/temporarily unavailable/g)).toHaveLength(1);
    } finally {
      expect(
        (await http('PUT', `${ctx.baseUrl}/admin/v1/settings/payments`, { headers: adminHeaders, body: { enabled: true } })).status,
      ).toBe(200);
    }
  });

  it('a payment link paid in another tab: "already paid", and the clock stops', async () => {
    const m = await createApprovedMerchant(ctx.app, { name: 'Link Shop' });
    const link = await http('POST', `${ctx.baseUrl}/api/v1/payment-links`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 10, currency: 'USD' },
    });
    expect(link.status).toBe(201);
    const linkId = link.json.paymentLink.id as string;
    const open = async () => {
      const res = await fetch(`${ctx.baseUrl}/link/${linkId}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'country=US',
        redirect: 'manual',
      });
      expect(res.status).toBe(303);
      return res.headers.get('location')!;
    };
    const first = await open();
    const second = await open();
    // The moment the other tab's payment completed, before this session's run has ended it.
    await ctx.db.sql`update payment_links set status = 'paid', paid_session_id = ${first.split('/').pop()!} where id = ${linkId}`;
    await expectState(second, 'link paid', { title: { en: 'Already paid', de: 'Bereits bezahlt' }, countdown: false, pay: false });
  });

  it('canceled and expired: no clock, no Pay', async () => {
    const canceled = await openSession();
    expect((await http('POST', `${canceled.checkoutUrl}/cancel`)).status).toBe(303);
    await expectState(canceled.checkoutUrl, 'canceled', {
      title: { en: 'Checkout canceled', de: 'Bezahlvorgang abgebrochen' },
      countdown: false,
      pay: false,
    });

    const expired = await openSession();
    expect(
      (
        await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${expired.id}/expire`, {
          headers: { authorization: `Bearer ${expired.apiKey}` },
        })
      ).status,
    ).toBe(200);
    await eventually(
      () => statusOf(expired.id),
      (s) => s === 'expired',
      10_000,
      'expired',
    );
    await expectState(expired.checkoutUrl, 'expired', {
      title: { en: 'Checkout expired', de: 'Bezahlvorgang abgelaufen' },
      countdown: false,
      pay: false,
    });
    // Still listening: late money and its refund would be news (a slow refresh without JavaScript).
    expect((await http('GET', expired.checkoutUrl)).text).toContain('<noscript><meta http-equiv="refresh" content="60"></noscript>');
  });

  it('declined: said so, Pay again and the wallet on the same session, the clock still running', async () => {
    const session = await openSession();
    expect(
      (
        await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
          body: { reference: session.id, outcome: 'declined' },
        })
      ).status,
    ).toBe(200);
    await eventually(
      async () => (await http('GET', session.checkoutUrl)).text,
      (page) => page.includes('Payment declined'),
      20_000,
      'the decline on the page',
    );
    await expectState(session.checkoutUrl, 'declined', {
      title: { en: 'Payment declined', de: 'Zahlung abgelehnt' },
      body: { en: /No money was taken\. You can try again\./, de: /Sie können es erneut versuchen\./ },
      countdown: true,
      pay: true,
    });
    expect(await statusOf(session.id)).toBe('pending');
  });

  it('overpaid: received, the extra going back to the refund address asked for, which the customer saves; no redirect takes the form away', async () => {
    // Two sessions back to the same shop: one paid exactly (the control: it goes back after 3 s),
    // one overpaid on chain (26 USDC for 25), which must stay for the refund address.
    const shop = 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}';
    const merchant = await createApprovedMerchant(ctx.app, { name: 'Phone Shop' });
    const over = await openSession({ successUrl: shop }, merchant.apiKey);
    const exact = await openSession({ successUrl: shop }, merchant.apiKey);
    expect((await http('POST', `${over.checkoutUrl}/wallet`, { headers: { accept: 'text/html' } })).status).toBe(303);
    const chain = sharedChain();
    const token = chain.tokens.polygon.USDC;
    const payer = await newPayer(chain);
    await mint(chain, token, payer.address, 26_000_000n);
    await pay(chain, payer, token, await depositAddressOf(ctx, over.id), 26_000_000n);
    expect(
      (
        await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
          body: { reference: exact.id, outcome: 'succeeded' },
        })
      ).status,
    ).toBe(200);
    await eventually(
      async () => (await http('GET', over.checkoutUrl)).text,
      (page) => page.includes('id="refund-address"'),
      60_000,
      'the overpaid session asking for a refund address',
    );
    await eventually(
      () => statusOf(exact.id),
      (s) => s === 'completed',
      20_000,
      'the exact payment completed',
    );

    await expectState(over.checkoutUrl, 'overpaid', {
      title: { en: 'Payment received', de: 'Zahlung erhalten' },
      body: {
        en: /^Thank you\. You sent 1\.00 USDC more than the amount due\. The extra will be sent back to the refund address below/,
        de: /^Vielen Dank\. Sie haben 1,00 USDC mehr als den fälligen Betrag gesendet\. Der Mehrbetrag wird an die Rückerstattungsadresse unten zurückgesendet/,
      },
      countdown: false,
      pay: false,
      refund: true,
    });
    expect((await http('GET', over.checkoutUrl)).text).not.toMatch(/will contact you|data-redirect-url|id="redirecting"|;url=/);

    const context = await phone('en', true, 'overpaid-redirect');
    await context.route('https://shop.example/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Shop</title>' }));
    const page = await context.newPage();
    await page.goto(over.checkoutUrl);
    expect(await page.inputValue('#refund-address')).toBe(payer.address);
    expect(await page.getAttribute('#return-link', 'href')).toBe(`https://shop.example/thanks?session=${over.id}`);
    // The control, opened after it, goes back to the shop on its own; the overpaid page, older, has not.
    const control = await context.newPage();
    await control.goto(exact.checkoutUrl);
    await control.waitForURL(`https://shop.example/thanks?session=${exact.id}`, { timeout: 15_000 });
    expect(page.url()).toBe(over.checkoutUrl);

    // A wrong address is refused on the page, nothing kept; the sender's, as filled in, is saved.
    await page.fill('#refund-address', payer.address.toLowerCase());
    await Promise.all([page.waitForEvent('framenavigated'), page.click('#refund-address-button')]);
    expect(await text(page, '.notice')).toContain('That address cannot receive a refund.');
    expect((await ctx.db.sql`select refund_address from checkout_sessions where id = ${over.id}`)[0]!.refund_address).toBeNull();
    await page.fill('#refund-address', payer.address);
    await Promise.all([page.waitForEvent('framenavigated'), page.click('#refund-address-button')]);
    expect(await text(page, '#refund-address-saved')).toBe(`Refunds go to ${payer.address}.`);
    expect((await ctx.db.sql`select refund_address from checkout_sessions where id = ${over.id}`)[0]!.refund_address).toBe(payer.address);
    await expectAccessible(page, 'overpaid, refund address saved');
    expect(page.url()).toBe(over.checkoutUrl);
    await context.close();
  });

  it('paid: received, no clock', async () => {
    const session = await openSession();
    expect(
      (
        await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
          body: { reference: session.id, outcome: 'succeeded' },
        })
      ).status,
    ).toBe(200);
    await eventually(
      () => statusOf(session.id),
      (s) => s === 'completed',
      20_000,
      'completed',
    );
    await expectState(session.checkoutUrl, 'completed', {
      title: { en: 'Payment received', de: 'Zahlung erhalten' },
      countdown: false,
      pay: false,
    });
  });
});

describe('words and numbers in the page’s language', () => {
  const model = (locale: (typeof PAGE_LOCALES)[number], extra: Partial<CheckoutPageModel> = {}): CheckoutPageModel => ({
    session: {
      id: 'SV_000000000000000000000001',
      status: 'expired',
      mode: 'live',
      currency: 'EUR',
      destinationAsset: 'USDC',
      network: 'polygon',
      successUrl: null,
      cancelUrl: null,
      expiresAt: new Date('2026-11-27T10:00:00Z'),
      provider: 'sandbox',
      verification: 'chain',
      providerPaymentId: null,
      cancelReason: null,
      railType: 'fiat_to_crypto',
    },
    amount: '81.00',
    merchantName: 'Laden',
    paymentsEnabled: true,
    text: pageText(locale),
    now: new Date('2026-11-26T10:00:00Z'),
    ...extra,
  });

  it('writes stablecoin amounts with the token’s significant decimals, fiat with the currency’s', () => {
    const de = pageText('de');
    expect(de.crypto('81.000000')).toBe('81,00');
    expect(de.crypto('24.750000')).toBe('24,75');
    expect(de.crypto('0.123456')).toBe('0,123456');
    expect(de.crypto('1234.500000')).toBe('1.234,50');
    expect(pageText('en').crypto('81.000000')).toBe('81.00');
    expect(de.amount('1500', 'JPY')).toBe('1.500');
    expect(de.money('40.000000', 'USD').replace(/\s/g, ' ')).toBe('40,00 $');
    const late = renderCheckoutPage(model('de', { exceptions: [{ kind: 'late', amount: '81.000000', status: 'open' }] }));
    expect(late).toContain('Die 81,00 USDC sind sicher');
    expect(late).not.toContain('81.000000');
  });

  it('uses customer words in every language: nothing about payouts or settlement', () => {
    for (const locale of PAGE_LOCALES) {
      const page = renderCheckoutPage(model(locale, { session: { ...model(locale).session, status: 'pending' } }));
      for (const word of ['Auszahlung', 'payout', 'Payout', 'Settles', 'liquida', 'Liquidado', 'Réglé'])
        expect(page, `${locale}: ${word}`).not.toContain(word);
      expect(page).toContain(`<dt>${CATALOGUES[locale].checkout.paidIn}</dt>`);
    }
  });

  it('shows the simple order’s shop, checksummed EVM addresses, network names as written and fiat with two decimals', async () => {
    const wallet = '0x52908400098527886e0f7030069857d2e4169ee7';
    const created = await http('POST', `${ctx.baseUrl}/api/checkout`, {
      body: {
        fiat_amount: 40,
        fiat_currency: 'EUR',
        success_url: 'https://corner.example/thanks',
        customer: { wallet_address: wallet, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
      },
    });
    expect(created.status).toBe(201);
    const code = created.json.data.transaction_code as string;
    const context = await phone('de', true, 'simple');
    const page = await context.newPage();
    await page.goto(`${ctx.baseUrl}/pay/${code}?method=usdc_polygon`);
    expect(await text(page, '#merchant')).toBe('corner.example');
    expect(await text(page, '#wallet')).toBe(getAddress(wallet));
    const deposit = await text(page, '#deposit-address');
    expect(deposit).toBe(getAddress(deposit));
    expect(await text(page, '#deposit-network')).toBe('Polygon');
    expect(await text(page, '#amount-usd')).toMatch(/^\d+,\d{2} \$$/);
    expect(await text(page, '#deposit-amount')).toMatch(/^\d+,\d{2}$/);
    expect((await page.content()).match(/\d\d:\d\d UTC/g)).toHaveLength(1);
    await expectAccessible(page, 'simple page (de)');
    await context.close();
  });
});
