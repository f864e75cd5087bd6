import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pageText } from '../../src/api/hosted/i18n';
import { formatCrypto, parseCrypto } from '../../src/domain/money';
import { expectAccessible, expectTargetSize } from '../support/axe';
import { screenshotsOnFailure, useBrowser } from '../support/browser';
import { mint, newPayer, pay, payFromWallet, usePrivateChain, type TestChain } from '../support/chain';
import { openEventStream } from '../support/event-stream';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { useMailSink } from '../support/mail';

// The payment link's page and the simple API's page follow what they show without a reload,
// through their own server-sent event streams (live.js) and, without JavaScript, their meta refresh.
// And the simple page's crypto rail in development: the sandbox's deposit address is one a transfer
// on the local chain reaches, and paying it completes the order. A private anvil with 3
// confirmations, so a payment can be held "in progress" until the test mines.
// One set of variables both fill before the app is built: the private chain's and the SMTP sink's
// (with mail configured, the checkout page offers the receipt email form, checked by axe below).
const mail = useMailSink();
const overrides = mail.env;
let chain: TestChain;
usePrivateChain(overrides, 3, (started) => (chain = started));
const ctx = useTestApp(overrides, { listen: true, sandbox: true, worker: true });
const chrome = useBrowser();
const PHONE = { width: 390, height: 844 };
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

const title = (page: Page) => page.locator('#status-title').textContent();
const t = (locale: 'en' | 'de' | 'fr' | 'es' | 'pt', key: string) => pageText(locale).t(key);

/** A tab in `locale`, watched for script errors (an error in live.js would leave the page still). */
async function tab(browser: Browser, locale: string, options: { javaScript?: boolean; phone?: boolean } = {}) {
  const context = screenshotsOnFailure(
    await browser.newContext({
      locale,
      extraHTTPHeaders: { 'accept-language': locale },
      javaScriptEnabled: options.javaScript ?? true,
      ...(options.phone ? { viewport: PHONE, isMobile: true, hasTouch: true } : {}),
    }),
    `live-${locale}`,
  );
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  return { page, problems, close: () => context.close() };
}

async function openOrder() {
  const res = await http('POST', `${ctx.baseUrl}/api/checkout`, {
    body: {
      fiat_amount: 25,
      fiat_currency: 'USD',
      success_url: 'https://shop.example/thanks',
      customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
    },
  });
  expect(res.status).toBe(201);
  return res.json.data as { transaction_code: string; checkout_url: string };
}

const orderStatus = (code: string) =>
  http('GET', `${ctx.baseUrl}/api/transaction?transaction_code=${code}`).then(
    (r) => r.json.data as { status: string; payout_dispatched: boolean },
  );

describe('the simple page', () => {
  it('streams the order’s status, and refuses an unknown order', async () => {
    const order = await openOrder();
    const stream = await openEventStream(`${ctx.baseUrl}/pay/${order.transaction_code}/events`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await stream.next(() => true, 5000, 'the first event')).toEqual({
      transactionCode: order.transaction_code,
      status: 'pending',
      payoutSent: false,
    });
    stream.close();
    expect((await http('GET', `${ctx.baseUrl}/pay/00000000-0000-4000-8000-000000000000/events`)).status).toBe(404);
  });

  it('shows, in development, a deposit address that paying on the local chain completes, and follows the order there (German, phone, JavaScript; English without)', async () => {
    const order = await openOrder();
    const live = await tab(chrome.browser, 'de', { phone: true });
    await live.page.goto(`${order.checkout_url}?method=usdc_polygon`);
    await live.page.locator('#crypto-instructions').waitFor();
    expect(await title(live.page)).toBe(t('de', 'simple.states.pending.title'));
    expect(await live.page.locator('#simple-checkout').getAttribute('data-events')).toBe(`/pay/${order.transaction_code}/events`);
    await expectAccessible(live.page, 'simple page, crypto rail (de, phone)');
    const address = (await live.page.locator('#deposit-address').textContent())! as `0x${string}`;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The same deposit through the API, for its amount as a decimal string.
    const rail = await http(
      'GET',
      `${ctx.baseUrl}/api/payment_link?transaction_code=${order.transaction_code}&payment_method=usdc_polygon`,
    );
    expect(rail.json.data.address.toLowerCase()).toBe(address.toLowerCase());
    const amount = parseCrypto(rail.json.data.amount as string);

    // The customer's wallet sends the shown amount to the shown address: nothing else is done for them.
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.polygon.USDC, payer.address, amount);
    await pay(chain, payer, chain.tokens.polygon.USDC, address, amount);

    // The sandbox sees it arrive and forwards it to the order's own deposit address; with 3
    // confirmations to wait for, the order is in progress, and the open tab says so by itself.
    await expect.poll(() => title(live.page), { timeout: 15_000 }).toBe(t('de', 'simple.states.processing.title'));
    expect((await orderStatus(order.transaction_code)).status).toBe('processing');
    await expectAccessible(live.page, 'simple page, processing (de, phone)');

    // Without JavaScript, the page refreshes itself quickly while money is on its way.
    const plain = await tab(chrome.browser, 'en', { javaScript: false });
    await plain.page.goto(order.checkout_url);
    expect(await title(plain.page)).toBe(t('en', 'simple.states.processing.title'));
    expect(await plain.page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('5');

    await chain.control.mine({ blocks: 3 });
    await eventually(
      () => orderStatus(order.transaction_code),
      (o) => o.status === 'settled',
      20_000,
      'the order to settle',
    );
    await expect.poll(() => title(live.page), { timeout: 10_000 }).toBe(t('de', 'simple.states.settled.title'));
    await expect.poll(() => title(plain.page), { timeout: 10_000 }).toBe(t('en', 'simple.states.settled.title'));
    expect(live.page.url()).toBe(`${order.checkout_url}?method=usdc_polygon`);
    // The payout to the customer's wallet waits for its gas to be confirmed: blocks are mined meanwhile.
    await eventually(
      async () => {
        await chain.control.mine({ blocks: 1 });
        return orderStatus(order.transaction_code);
      },
      (o) => o.payout_dispatched,
      30_000,
      'the payout',
    );
    // The payout sent is the last change the page follows: drawn with it, it has no stream any more.
    await expect.poll(() => live.page.locator('#simple-checkout').getAttribute('data-events'), { timeout: 10_000 }).toBeNull();
    expect(await live.page.locator('#return-link').count()).toBe(1);
    await expectAccessible(live.page, 'simple page, settled (de, phone)');
    expect(live.problems).toEqual([]);
    await live.close();
    await plain.close();
  }, 90_000);
});

async function createLink() {
  const m = await createApprovedMerchant(ctx.app, { name: 'Link Studio' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/payment-links`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 30, currency: 'USD', description: 'Consulting, March' },
  });
  expect(res.status).toBe(201);
  return res.json.paymentLink as { id: string; url: string };
}

/** Someone pays the link: a session from its Pay form, paid from a wallet and confirmed. */
async function payLink(linkId: string) {
  const pressed = await fetch(`${ctx.baseUrl}/link/${linkId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ctx.baseUrl },
    body: 'country=US',
    redirect: 'manual',
  });
  expect(pressed.status).toBe(303);
  const sessionId = /\/pay\/(SV_[0-9A-Za-z]{24})$/.exec(pressed.headers.get('location') ?? '')![1]!;
  const deposit = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${sessionId}/deposit`);
  expect(deposit.status).toBe(200);
  await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.json.deposit.address, parseCrypto(deposit.json.deposit.amount));
  await chain.control.mine({ blocks: 3 });
}

describe('the payment link page', () => {
  it('streams the link’s status, and refuses an unknown link', async () => {
    const link = await createLink();
    const stream = await openEventStream(`${ctx.baseUrl}/link/${link.id}/events`);
    expect(stream.status).toBe(200);
    expect(await stream.next(() => true, 5000, 'the first event')).toEqual({ id: link.id, status: 'active' });
    stream.close();
    expect((await http('GET', `${ctx.baseUrl}/link/plink_000000000000000000000000/events`)).status).toBe(404);
    expect((await http('GET', `${ctx.baseUrl}/link/nope/events`)).status).toBe(404);
  });

  it('says it was paid in every open tab, with JavaScript (French, phone) and without (Spanish)', async () => {
    const link = await createLink();
    const live = await tab(chrome.browser, 'fr', { phone: true });
    await live.page.goto(link.url);
    expect(await title(live.page)).toBe(t('fr', 'link.states.active.title'));
    await expectAccessible(live.page, 'link page, active (fr, phone)');
    const plain = await tab(chrome.browser, 'es', { javaScript: false });
    await plain.page.goto(link.url);
    expect(await title(plain.page)).toBe(t('es', 'link.states.active.title'));
    expect(await plain.page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('60');

    await payLink(link.id);
    await expect.poll(() => title(live.page), { timeout: 30_000 }).toBe(t('fr', 'link.states.paid.title'));
    expect(await live.page.locator('#pay-button').count()).toBe(0);
    await expectAccessible(live.page, 'link page, paid (fr, phone)');
    // Without JavaScript the page cannot change by itself: its meta refresh (60 s, checked above)
    // loads it again, as this reload does, and the page it loads says paid.
    expect(await title(plain.page)).toBe(t('es', 'link.states.active.title'));
    await plain.page.reload();
    expect(await title(plain.page)).toBe(t('es', 'link.states.paid.title'));
    expect(live.problems).toEqual([]);
    await live.close();
    await plain.close();
  }, 60_000);
});

describe('the wallet view', () => {
  it('offers only the wallet rail, and a way back to the provider until money is on its way (English phone, Portuguese desktop)', async () => {
    const m = await createApprovedMerchant(ctx.app, { name: 'Wallet Shop' });
    const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    expect(res.status).toBe(201);
    const session = res.json.checkoutSession as { id: string; checkoutUrl: string };

    const phone = await tab(chrome.browser, 'en', { phone: true });
    await phone.page.goto(session.checkoutUrl);
    await phone.page.click('#wallet-button');
    await phone.page.waitForURL(`${session.checkoutUrl}/wallet`);
    await phone.page.locator('#wallet-instructions').waitFor();
    // No provider's Pay button, no second "pay from your wallet": the rail chosen, and the way back.
    expect(await phone.page.locator('#pay-button').count()).toBe(0);
    expect(await phone.page.locator('#wallet-button').count()).toBe(0);
    const back = phone.page.locator('#choose-provider');
    expect(await back.textContent()).toBe(t('en', 'checkout.payWithPartnerInstead'));
    expect(await phone.page.locator('#cancel-button').count()).toBe(1);
    // The receipt email form, optional, and axe's findings with it on the page.
    expect(await phone.page.locator('#receipt-email').isVisible()).toBe(true);
    await expectAccessible(phone.page, 'wallet view (en, phone)');
    await back.click();
    await phone.page.waitForURL(session.checkoutUrl);
    expect(await phone.page.locator('#pay-button').isVisible()).toBe(true);
    expect(await phone.page.locator('#wallet-button').isVisible()).toBe(true);

    const desk = await tab(chrome.browser, 'pt');
    await desk.page.goto(`${session.checkoutUrl}/wallet`);
    expect(await desk.page.locator('#choose-provider').textContent()).toBe(t('pt', 'checkout.payWithPartnerInstead'));
    expect(await desk.page.locator('#pay-button').count()).toBe(0);
    expect(await desk.page.locator('#receipt-heading').textContent()).toBe(t('pt', 'checkout.email.title'));
    await expectAccessible(desk.page, 'wallet view (pt)');

    // Part of the money is on its way to the deposit address: the rest goes there too, so the page
    // no longer offers the provider.
    const deposit = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}/deposit`);
    expect(deposit.status).toBe(200);
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.json.deposit.address, 5_000_000n);
    await expect.poll(() => title(desk.page), { timeout: 15_000 }).toBe(t('pt', 'checkout.states.confirming.title'));
    expect(await desk.page.locator('#choose-provider').count()).toBe(0);
    expect(await desk.page.locator('#pay-button').count()).toBe(0);
    await expectAccessible(desk.page, 'wallet view, confirming (pt)');
    expect([...phone.problems, ...desk.problems]).toEqual([]);
    await phone.close();
    await desk.close();
  }, 60_000);

  it('asks before a cancel once part of the money arrived and says what happens to it; then asks where it goes back, in fields a phone shows whole (English with JavaScript, German without)', async () => {
    const m = await createApprovedMerchant(ctx.app, { name: 'Wallet Shop' });
    const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 25, currency: 'USD', countryCode: 'US', cancelUrl: 'https://shop.example/cart' },
    });
    expect(res.status).toBe(201);
    const session = res.json.checkoutSession as { id: string; checkoutUrl: string };
    const deposit = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}/deposit`);
    expect(deposit.status).toBe(200);
    const rest = pageText('en').crypto(formatCrypto(parseCrypto(deposit.json.deposit.amount as string) - 10_000_000n));
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.json.deposit.address, 10_000_000n);
    await chain.control.mine({ blocks: 3 });
    await eventually(
      () => http('GET', `${session.checkoutUrl}/wallet`).then((r) => r.text),
      (html) => html.includes(t('en', 'checkout.states.partlyPaid.title')),
      20_000,
      'partly paid',
    );
    const status = async () => (await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}`)).json.status as string;

    // Cancel is a question now: what arrived, what becomes of it, and the way to pay the rest instead.
    const phone = await tab(chrome.browser, 'en', { phone: true });
    await phone.page.goto(`${session.checkoutUrl}/wallet`);
    await phone.page.click('#cancel-button');
    await phone.page.waitForURL(`${session.checkoutUrl}/cancel`);
    expect(await title(phone.page)).toBe('Cancel this checkout?');
    expect(await phone.page.locator('#money-sent').textContent()).toBe('We have already received 10.00 USDC from you for this checkout.');
    expect(await phone.page.locator('#what-happens').textContent()).toContain(
      'it is kept safe, Wallet Shop is told, and they will refund it to you',
    );
    expect(await phone.page.locator('#pay-rest').textContent()).toBe(
      `To pay instead, send the remaining ${rest} USDC to the same address.`,
    );
    await expectAccessible(phone.page, 'cancel confirmation (en, phone)');
    await phone.page.click('#keep-paying');
    await phone.page.waitForURL(`${session.checkoutUrl}/wallet`);
    expect(await title(phone.page)).toBe(t('en', 'checkout.states.partlyPaid.title'));
    expect(await status()).toBe('pending');

    // A page drawn before the money came posts no confirmation, or one of less than arrived: asked again.
    for (const body of [undefined, { confirm: '5.000000' }]) {
      const stale = await http('POST', `${session.checkoutUrl}/cancel`, body ? { body } : {});
      expect(stale.status).toBe(303);
      expect(stale.headers.get('location')).toBe(`/pay/${session.id}/cancel`);
    }
    expect(await status()).toBe('pending');

    // Without JavaScript, in German: the same question, then the cancel; the customer stays to say where the money goes back.
    const plain = await tab(chrome.browser, 'de', { javaScript: false, phone: true });
    await plain.page.goto(`${session.checkoutUrl}/wallet`);
    await plain.page.click('#cancel-button');
    await plain.page.waitForURL(`${session.checkoutUrl}/cancel`);
    expect(await title(plain.page)).toBe(t('de', 'checkout.cancelConfirm.title'));
    await plain.page.click('#confirm-cancel');
    await plain.page.waitForURL(session.checkoutUrl);
    expect(await status()).toBe('canceled');
    expect(await title(plain.page)).toBe(t('de', 'checkout.exceptions.title'));
    expect(await plain.page.locator('#refund-address').count()).toBe(1);

    // The phone's tab follows the cancel by itself (its live status reloads the page): once it has,
    // it opens the checkout page; a goto during that reload would be cut short by it.
    await eventually(
      () => title(phone.page).catch(() => null),
      (shown) => shown !== null && shown !== t('en', 'checkout.states.partlyPaid.title'),
      20_000,
      "the phone's tab following the cancel",
    );
    // The fields the customer fills: as wide as the card, a finger high, the address's 42 characters in view.
    await phone.page.goto(session.checkoutUrl);
    const address = phone.page.locator('#refund-address');
    expect(await address.inputValue()).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(
      await address.evaluate((el: { scrollWidth: number; clientWidth: number; scrollHeight: number; clientHeight: number }) => [
        el.scrollWidth <= el.clientWidth,
        el.scrollHeight <= el.clientHeight,
      ]),
    ).toEqual([true, true]);
    const card = (await phone.page.locator('#checkout').boundingBox())!;
    for (const field of ['#refund-address', '#receipt-email']) {
      const box = (await phone.page.locator(field).boundingBox())!;
      expect(box.height, field).toBeGreaterThanOrEqual(44);
      expect(box.width, field).toBeGreaterThan(card.width * 0.8);
    }
    expect(await phone.page.locator('#back-link').getAttribute('href')).toBe('https://shop.example/cart');
    await expectAccessible(phone.page, 'canceled with money owed back (en, phone)');
    await expectTargetSize(phone.page, 'canceled with money owed back (en, phone)');
    // The wrapping field still sends its form on Enter; the address it was filled with is kept.
    const filled = await address.inputValue();
    await Promise.all([phone.page.waitForEvent('framenavigated'), address.press('Enter')]);
    expect(await phone.page.locator('#refund-address-saved').textContent()).toBe(`Refunds go to ${filled}.`);
    expect([...phone.problems, ...plain.problems]).toEqual([]);
    await phone.close();
    await plain.close();
  }, 90_000);
});
