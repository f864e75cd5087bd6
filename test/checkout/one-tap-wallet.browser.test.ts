import path from 'node:path';
import { createWalletClient, http as viemHttp, type Address, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { devChain } from '../../tools/dev/dev-accounts';
import { DEV_CHAIN_ID } from '../../tools/dev/dev-chain';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { expectAccessible } from '../support/axe';
import { ARTIFACTS, screenshotsOnFailure, useBrowser } from '../support/browser';
import { mint, newPayer, sharedChain } from '../support/chain';
import { eventually, http } from '../support/http';

// Paying in one tap. A phone gets an "Open in wallet" link with the EIP-681 URI; a
// browser with an EIP-1193 wallet gets "Pay with browser wallet". The wallet here is injected into
// Chromium as window.ethereum and answers through Node: it holds a local key, switches chains, and
// signs and sends the page's transaction to the local anvil, where the watcher sees it like any
// transfer and the session completes.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chrome = useBrowser();
const chain = sharedChain();

async function openSession() {
  const m = await createApprovedMerchant(ctx.app, { name: 'One Tap Shop' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', cancelUrl: 'https://shop.example/cart' },
  });
  expect(res.status).toBe(201);
  return res.json.checkoutSession as { id: string; checkoutUrl: string };
}

const statusOf = async (id: string) => (await http('GET', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}`)).json.status as string;

describe('one-tap wallets on the checkout page', () => {
  it('offers the EIP-681 link on a phone only, and shows the whole deposit address', async () => {
    const session = await openSession();
    const phone = screenshotsOnFailure(
      await chrome.browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true }),
      'one-tap-phone',
    );
    const page = await phone.newPage();
    await page.goto(session.checkoutUrl);
    await page.click('#wallet-button');
    await page.locator('#wallet-instructions').waitFor();
    const link = page.locator('#open-in-wallet');
    expect(await link.isVisible()).toBe(true);
    expect(await link.getAttribute('href')).toBe(await page.locator('#deposit-qr').getAttribute('data-uri'));
    // No EIP-1193 wallet in this browser: no browser-wallet button.
    expect(await page.locator('#browser-wallet-button').isVisible()).toBe(false);
    // The address whole: every character in the field, none scrolled out of sight.
    const field = page.locator('#deposit-address');
    expect(await field.inputValue()).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const fits = await field.evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight);
    expect(fits).toBe(true);
    await expectAccessible(page, 'wallet view on a phone');
    // Not fullPage: that capture resizes the viewport and drops the phone's touch emulation.
    await link.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'one-tap-phone.png') });
    await phone.close();

    const desktop = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const wide = await desktop.newPage();
    await wide.goto(`${ctx.baseUrl}/pay/${session.id}/wallet`);
    expect(await wide.locator('#open-in-wallet').isVisible()).toBe(false);
    await desktop.close();
  });

  it('pays with an injected browser wallet: accounts, a chain switch, a real token transfer, and the session completes', async () => {
    const session = await openSession();
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.polygon.USDC, payer.address, 100_000_000n);
    const wallet = createWalletClient({ account: payer, chain: devChain(chain.rpcUrl), transport: viemHttp(chain.rpcUrl) });

    // The wallet starts on another chain, so the page must ask it to switch.
    let chainId = '0x1';
    const calls: string[] = [];
    const context = screenshotsOnFailure(await chrome.browser.newContext({ viewport: { width: 1024, height: 900 } }), 'one-tap-browser');
    await context.exposeFunction('__eip1193', async (method: string, params: unknown[]) => {
      calls.push(method);
      switch (method) {
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return [payer.address];
        case 'eth_chainId':
          return chainId;
        case 'wallet_switchEthereumChain':
          chainId = (params[0] as { chainId: string }).chainId;
          return null;
        case 'eth_sendTransaction': {
          const tx = params[0] as { from: Address; to: Address; data: Hex; value?: Hex };
          if (Number(chainId) !== DEV_CHAIN_ID) throw new Error(`asked to send on chain ${chainId}`);
          expect(tx.from.toLowerCase()).toBe(payer.address.toLowerCase());
          return wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value ?? '0x0') });
        }
        default:
          throw new Error(`unsupported method ${method}`);
      }
    });
    await context.addInitScript(() => {
      const w = globalThis as unknown as {
        ethereum?: unknown;
        __eip1193: (method: string, params: unknown[]) => Promise<unknown>;
      };
      w.ethereum = { request: ({ method, params }: { method: string; params?: unknown[] }) => w.__eip1193(method, params ?? []) };
    });
    const page = await context.newPage();
    await page.goto(session.checkoutUrl);
    await page.click('#wallet-button');
    const button = page.locator('#browser-wallet-button');
    await button.waitFor();
    expect(await button.textContent()).toBe('Pay with browser wallet');
    // A wide screen with a mouse has no wallet app to open.
    expect(await page.locator('#open-in-wallet').isVisible()).toBe(false);
    await expectAccessible(page, 'wallet view with a browser wallet');
    await button.click();
    await eventually(
      () => statusOf(session.id),
      (s) => s === 'completed',
      30_000,
      'the session completed by the browser wallet’s transfer',
    );
    expect(calls).toEqual(['eth_requestAccounts', 'eth_chainId', 'wallet_switchEthereumChain', 'eth_sendTransaction']);
    expect(chainId).toBe(`0x${DEV_CHAIN_ID.toString(16)}`);
    // The open tab learns it from the status stream.
    await page.locator('#status-title', { hasText: 'Payment received' }).waitFor({ timeout: 15_000 });
    const [credit] = await ctx.db.sql`select count(*)::int as n from chain_credits where payment_id = ${session.id}`;
    expect(credit).toEqual({ n: 1 });
    await context.close();
  });
});
