import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEV_CHAIN_ID } from '../../tools/dev/dev-chain';
import { parseCrypto } from '../../src/domain/money';
import { expectAccessible } from '../support/axe';
import { ARTIFACTS, screenshotsOnFailure, useBrowser } from '../support/browser';
import { mint, newPayer, pay, usePrivateChain, randomAddress, type TestChain } from '../support/chain';
import { openEventStream } from '../support/event-stream';
import { buildApp } from '../../src/api/app';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';

// Every state change reaches an open tab within about 2 s, through the server-sent
// events of GET /api/v1/checkout/sessions/{id}/events (and, without JavaScript, the page's own meta
// refresh). A private anvil with 3 confirmations, so "n of 3" can be watched block by block.
const overrides: Record<string, string> = {};
let chain: TestChain;
usePrivateChain(overrides, 3, (started) => (chain = started));
const ctx = useTestApp(overrides, { listen: true, sandbox: true, worker: true });
const chrome = useBrowser();
const PHONE = { width: 390, height: 844 };
// A change is in Postgres at most one watcher pass after its block; the page has it 2 s after that.
const REACHES_TAB_MS = 2500;

interface Status {
  status: string;
  received: string | null;
  remaining: string | null;
  confirmations: number | null;
  requiredConfirmations: number | null;
  exception: { kind: string; status: string; amount: string } | null;
  declined: boolean;
}

async function openSession(body: Record<string, unknown> = {}) {
  const m = await createApprovedMerchant(ctx.app, { name: 'Live Shop' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', ...body },
  });
  expect(res.status).toBe(201);
  return { ...(res.json.checkoutSession as { id: string; checkoutUrl: string }), apiKey: m.apiKey };
}

async function depositOf(id: string): Promise<{ address: `0x${string}`; amount: string }> {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/deposit`);
  expect(res.status).toBe(200);
  return res.json.deposit;
}

/** A customer's wallet with `micro` of polygon USDC, ready to send. */
async function walletWith(micro: bigint) {
  const payer = await newPayer(chain);
  await mint(chain, chain.tokens.polygon.USDC, payer.address, micro);
  return { send: (to: `0x${string}`, amount: bigint) => pay(chain, payer, chain.tokens.polygon.USDC, to, amount) };
}

const cursorHas = (hash: string) =>
  eventually(
    () => ctx.db.sql`select cursor from chain_cursors where network = 'polygon'`.then((r) => (r[0]?.cursor as string | undefined) ?? ''),
    (c) => c.includes(hash),
    10_000,
    'the watcher to see the transfer',
  );

const text = (page: Page, selector: string) =>
  page
    .locator(selector)
    .textContent()
    .then((t) => (t ?? '').replace(/\s/g, ' '));

describe('the live status stream', () => {
  it('sends the status now, then each change: n of 3 confirmations, then partly paid', async () => {
    const session = await openSession();
    const deposit = await depositOf(session.id);
    const g = parseCrypto(deposit.amount);
    const stream = await openEventStream(`${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}/events`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await stream.next<Status>(() => true, 5000, 'the first event')).toEqual({
      id: session.id,
      status: 'pending',
      received: '0.000000',
      remaining: null,
      confirmations: null,
      requiredConfirmations: null,
      exception: null,
      declined: false,
    });

    const wallet = await walletWith(g);
    const part = 10_000_000n;
    const first = await wallet.send(deposit.address, part);
    const seen = await stream.next<Status>((s) => s.confirmations !== null, 10_000, 'confirming');
    expect(seen).toMatchObject({ status: 'pending', confirmations: 1, requiredConfirmations: 3, received: '0.000000' });
    await cursorHas(first.transactionHash);
    await chain.control.mine({ blocks: 1 });
    expect(await stream.next<Status>((s) => s.confirmations === 2, 10_000, '2 of 3')).toMatchObject({ requiredConfirmations: 3 });
    await chain.control.mine({ blocks: 1 });
    expect(await stream.next<Status>((s) => s.remaining !== null, 10_000, 'partly paid')).toEqual({
      id: session.id,
      status: 'pending',
      received: '10.000000',
      remaining: (Number(g - part) / 1e6).toFixed(6),
      confirmations: null,
      requiredConfirmations: null,
      exception: null,
      declined: false,
    });

    stream.close();
  }, 60_000);

  it('refuses a malformed id, an unknown session, and more than 8 streams from one address', async () => {
    expect((await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/nope/events`)).json).toMatchObject({
      ok: false,
      error: 'InvalidId',
    });
    expect((await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/SV_doesnotexist000000000000/events`)).status).toBe(404);
    const session = await openSession();
    const streams = [];
    for (let i = 0; i < 8; i++) streams.push(await openEventStream(`${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}/events`));
    expect(streams.map((s) => s.status)).toEqual(Array(8).fill(200));
    const refused = await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}/events`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.json).toMatchObject({ ok: false, error: 'RateLimited' });
    // A closed stream frees its place.
    streams.pop()!.close();
    await eventually(
      () => openEventStream(`${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}/events`),
      (s) => {
        if (s.status === 200) streams.push(s);
        return s.status === 200;
      },
      5000,
      'a place after one stream closed',
    );
    for (const s of streams) s.close();
  });
});

// A decline leaves the session pending: only the stream's `declined` tells an open tab of it.
describe('a decline reaches the tab that was waiting for the provider', () => {
  const declineInSandbox = async (id: string) =>
    expect(
      (await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: id, outcome: 'declined' } })).status,
    ).toBe(200);

  it('streams the decline, and the page drawn before it offers "Try again" by itself', async () => {
    const session = await openSession();
    // Pay pressed: the provider's page is open, the checkout page says the payment is being confirmed.
    expect((await http('POST', `${ctx.baseUrl}/pay/${session.id}/start`)).status).toBe(303);
    const stream = await openEventStream(`${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}/events`);
    expect(await stream.next<Status>(() => true, 5000, 'the first event')).toMatchObject({ status: 'pending', declined: false });
    const page = await screenshotsOnFailure(await chrome.browser.newContext({ viewport: PHONE }), 'live-declined').newPage();
    await page.goto(session.checkoutUrl);
    expect(await text(page, '#status-title')).toBe('Confirming your payment');

    await declineInSandbox(session.id);
    expect(await stream.next<Status>((s) => s.declined, 10_000, 'the decline')).toMatchObject({ status: 'pending', declined: true });
    await expect.poll(() => text(page, '#status-title'), { timeout: REACHES_TAB_MS + 2000 }).toBe('Payment declined');
    expect(await text(page, '#pay-button')).toBe('Try again');
    expect(await page.locator('#wallet-button').isVisible()).toBe(true);
    await expectAccessible(page, 'declined after the page was drawn');
    stream.close();
    await page.context().close();
  }, 60_000);

  it('without JavaScript, the wallet view chosen after a decline says so and refreshes quickly until the money is seen', async () => {
    const session = await openSession();
    expect((await http('POST', `${ctx.baseUrl}/pay/${session.id}/start`)).status).toBe(303);
    await declineInSandbox(session.id);
    await eventually(
      () => http('GET', session.checkoutUrl).then((r) => r.text),
      (html) => html.includes('Payment declined'),
      20_000,
      'the decline on the page',
    );
    const context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: PHONE, javaScriptEnabled: false }), 'live-declined');
    const page = await context.newPage();
    await page.goto(session.checkoutUrl);
    await page.click('#wallet-button');
    await page.waitForURL(`${session.checkoutUrl}/wallet`);
    // The customer chose the wallet: that is what the view says, and it watches for the transfer.
    expect(await text(page, '#status-title')).toBe('Pay from your wallet');
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('5');
    const deposit = await depositOf(session.id);
    const wallet = await walletWith(parseCrypto(deposit.amount));
    await wallet.send(deposit.address, 5_000_000n);
    // Only the meta refresh can bring the news, well within a minute.
    await expect.poll(() => text(page, '#status-title'), { timeout: 12_000 }).toBe('Confirming your transfer');
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('5');
    await context.close();
  }, 60_000);
});

// Completions come last: their payouts mine blocks of their own, which would count other tests' confirmations.
describe('the stream’s upkeep', () => {
  it('sends a heartbeat comment while nothing changes, and ends every stream when the app closes', async () => {
    // A second API process on the same database, with a quick heartbeat.
    const app = await buildApp(
      { config: ctx.config, db: ctx.db, temporal: ctx.temporal, providers: ctx.providers, liveStatus: { heartbeatMs: 100 } },
      { logger: false },
    );
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const session = await openSession();
    const stream = await openEventStream(`${address}/api/v1/checkout/sessions/${session.id}/events`);
    expect(await stream.next<Status>(() => true, 5000, 'the first event')).toMatchObject({ status: 'pending' });
    await stream.commentsReach(3);
    await app.close();
    await eventually(
      async () => stream.ended(),
      (e) => e,
      5000,
      'the stream to end',
    );
  });
});

describe('an open tab in Chromium follows the payment without reload', () => {
  it('shows the same states without JavaScript, refreshing itself quickly while money is on its way', async () => {
    const session = await openSession({ locale: 'fr' });
    const deposit = await depositOf(session.id);
    const context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: PHONE, javaScriptEnabled: false }), 'live');
    const page = await context.newPage();
    // Before anything is sent the wallet page already refreshes quickly: a transfer confirmed and not
    // yet credited shows it again for a moment, and a slow refresh would hold that for a minute.
    await page.goto(`${session.checkoutUrl}/wallet`);
    expect(await text(page, '#status-title')).toBe('Payer depuis votre portefeuille');
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('5');
    const wallet = await walletWith(parseCrypto(deposit.amount));
    const first = await wallet.send(deposit.address, 5_000_000n);
    await cursorHas(first.transactionHash);
    await page.goto(`${session.checkoutUrl}/wallet`);
    expect(await text(page, '#status-title')).toBe('Confirmation de votre virement');
    expect(await text(page, '#status')).toContain('Confirmations : 1 sur 3');
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('5');
    // axe runs scripts of its own: the same page, in a tab with JavaScript.
    const scripted = await chrome.browser.newPage({ viewport: PHONE });
    await scripted.goto(`${session.checkoutUrl}/wallet`);
    expect(await text(scripted, '#status-title')).toBe('Confirmation de votre virement');
    await expectAccessible(scripted, 'confirming (fr)');
    await scripted.close();
    await chain.control.mine({ blocks: 2 });
    // Only the meta refresh can bring the news.
    await expect.poll(() => text(page, '#status-title'), { timeout: 10_000 }).toBe('Paiement partiel');
    expect(await text(page, '#status')).toContain('Nous avons reçu 5,00 USDC.');
    await context.close();
  }, 60_000);

  it('counts confirmations, asks for the rest with its QR code, then says it was paid (German, JavaScript, phone)', async () => {
    const session = await openSession({ locale: 'de' });
    const context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: PHONE }), 'live');
    const page = await context.newPage();
    await page.goto(session.checkoutUrl);
    await page.click('#wallet-button');
    await page.waitForURL(`${session.checkoutUrl}/wallet`);
    expect(await text(page, '#status-title')).toBe('Aus Ihrer Wallet bezahlen');
    const deposit = await depositOf(session.id);
    const g = parseCrypto(deposit.amount);
    const wallet = await walletWith(g);

    const first = await wallet.send(deposit.address, 10_000_000n);
    await cursorHas(first.transactionHash);
    await expect.poll(() => text(page, '#status-title'), { timeout: REACHES_TAB_MS }).toBe('Ihre Überweisung wird bestätigt');
    expect(await text(page, '#status')).toContain('1 von 3 Bestätigungen');
    await expectAccessible(page, 'confirming (de)');
    await chain.control.mine({ blocks: 1 });
    // Counted in place: the same document, its number updated.
    await expect.poll(() => text(page, '#confirmations'), { timeout: REACHES_TAB_MS + 1000 }).toBe('2');
    await chain.control.mine({ blocks: 1 });
    await expect.poll(() => text(page, '#status-title'), { timeout: REACHES_TAB_MS + 1000 }).toBe('Teilweise bezahlt');
    const rest = g - 10_000_000n;
    expect(await text(page, '#status')).toContain('Wir haben 10,00 USDC erhalten.');
    expect(await page.locator('#deposit-qr').getAttribute('data-uri')).toBe(
      `ethereum:${chain.tokens.polygon.USDC}@${DEV_CHAIN_ID}/transfer?address=${deposit.address}&uint256=${rest}`,
    );
    expect(await page.locator('#deposit-address').inputValue()).toBe(deposit.address);
    await expectAccessible(page, 'partly paid (de)');
    await page.screenshot({ path: path.join(ARTIFACTS, 'live-partly-paid-de.png'), fullPage: true });

    await wallet.send(deposit.address, rest);
    await chain.control.mine({ blocks: 2 });
    await eventually(
      () => http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}`).then((r) => r.json.status as string),
      (s) => s === 'completed',
      20_000,
      'completed',
    );
    await expect.poll(() => text(page, '#status-title'), { timeout: REACHES_TAB_MS }).toBe('Zahlung erhalten');
    await expectAccessible(page, 'completed (de)');
    await context.close();
  }, 90_000);
  it('tells a tab left open on an expired checkout that late money arrived, then that it was sent back (English with JavaScript, German without, phone)', async () => {
    const session = await openSession();
    const deposit = await depositOf(session.id);
    const page = await screenshotsOnFailure(await chrome.browser.newContext({ viewport: PHONE }), 'live-late').newPage();
    await page.goto(session.checkoutUrl);
    expect(
      (
        await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${session.id}/expire`, {
          headers: { authorization: `Bearer ${session.apiKey}` },
        })
      ).status,
    ).toBe(200);
    await expect.poll(() => text(page, '#status-title'), { timeout: 10_000 }).toBe('Checkout expired');

    const wallet = await walletWith(parseCrypto(deposit.amount));
    await wallet.send(deposit.address, parseCrypto(deposit.amount));
    await chain.control.mine({ blocks: 2 });
    await eventually(
      () => ctx.db.sql`select kind from payment_exceptions where payment_id = ${session.id}`.then((r) => r.length),
      (n) => n > 0,
      20_000,
      'the late exception',
    );
    await expect.poll(() => text(page, '#status-title'), { timeout: REACHES_TAB_MS }).toBe('We received your payment');
    expect(await text(page, '#status')).toContain('Your payment arrived after this checkout had ended.');
    await expectAccessible(page, 'late money');
    // Without JavaScript, in German: what the page's refresh loads.
    const plain = screenshotsOnFailure(
      await chrome.browser.newContext({ viewport: PHONE, javaScriptEnabled: false, locale: 'de-DE' }),
      'live',
    );
    const german = await plain.newPage();
    await german.goto(session.checkoutUrl);
    expect(await text(german, '#status-title')).toBe('Wir haben Ihre Zahlung erhalten');
    const inGerman = new Intl.NumberFormat('de', { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(Number(deposit.amount));
    expect(await text(german, '#status')).toContain(`Die ${inGerman} USDC sind sicher`);

    // The operator sends it back; the open tab hears of it.
    const [exception] = await ctx.db.sql`select id from payment_exceptions where payment_id = ${session.id}`;
    const refund = await http('POST', `${ctx.baseUrl}/admin/v1/exceptions/${exception!.id}/refund`, {
      headers: adminHeaders,
      body: { address: randomAddress() },
    });
    expect(refund.status).toBe(200);
    // Its payouts need 3 confirmations here: blocks are mined until the exception is refunded.
    await eventually(
      async () => {
        await chain.control.mine({ blocks: 1 });
        return (await ctx.db.sql`select status from payment_exceptions where id = ${exception!.id}`)[0]!.status as string;
      },
      (status) => status === 'refunded',
      60_000,
      'the refund confirmed',
    );
    await expect.poll(() => text(page, '#status'), { timeout: REACHES_TAB_MS }).toContain('were sent back to your wallet');
    await expectAccessible(page, 'refunded');
    await german.reload();
    expect(await text(german, '#status')).toContain('wurden an Ihre Wallet zurückgesendet');
    await plain.close();
    await page.context().close();
  }, 120_000);
});
