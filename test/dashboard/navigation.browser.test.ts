import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectNoAxeViolations, showColorScheme } from '../support/axe';
import { ARTIFACTS, screenshotsOnFailure, useBrowser, watchProblems } from '../support/browser';
import { approve, PASSWORD, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';
import { seedBalance } from '../support/seed-balance';
import { seedPayment } from '../support/seed-payment';
import { screenshotBothSchemes } from './shots';

// The dashboard's frame in real Chromium: the sections in a sidebar with the current one marked (and
// behind a Menu button on a phone), breadcrumbs on the pages inside a section, and the search that
// ⌘K / Ctrl+K or / opens, finding a payment by its id, its order id and a transaction hash. No section
// is wider than a 390 px phone; axe-core finds nothing in any section, on a wide screen and on a phone,
// light and dark.
const mailbox = useMailSink();
const ctx = useTestApp(mailbox.env, { listen: true });
const chrome = useBrowser();

const SECTIONS = [
  '/',
  '/payments',
  '/links',
  '/money',
  '/developers',
  '/developers/deliveries',
  '/developers/requests',
  '/team',
  '/audit-log',
  '/security',
  '/quickstart',
];

/** The pages a visitor without a session sees (a link's token is only sent when its button is pressed). */
const PUBLIC_PAGES = ['/sign-in', '/sign-up', '/forgot-password', '/reset-password?token=walk', '/verify-email?token=walk'];

/** Each section in turn (and a payment's page), loaded and settled, with axe-core run on it light and dark. */
async function walkWithAxe(page: Page, base: string, sections: string[], width: string): Promise<void> {
  for (const section of sections) {
    await page.goto(`${base}${section}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    await expectNoAxeViolations(page, `${section} at ${width}`);
    const name = (section.replace(/^\//, '').replace(/\?.*/, '').replace(/[/$]/g, '-') || 'overview').replace(/-SV_.*/, '-payment');
    await screenshotBothSchemes(page, `${name}-${width.replace(' ', '')}`, { fullPage: true });
  }
}

/** The link of the sidebar marked as the current section (aria-current="page"). */
const current = (page: Page) => page.getByRole('navigation', { name: 'Sections' }).locator('a[aria-current="page"]');

async function search(page: Page, open: () => Promise<void>, text: string) {
  await open();
  const dialog = page.getByRole('dialog', { name: 'Find a payment' });
  await dialog.getByLabel('Payment id, order id or transaction hash').fill(text);
  await dialog.getByLabel('Payment id, order id or transaction hash').press('Enter');
}

describe('the dashboard’s navigation in Chromium', { timeout: 180_000 }, () => {
  it('marks the current section, shows breadcrumbs, and finds a payment by id, order id and transaction hash', async () => {
    const owner = await signedUpOwner(ctx.app, mailbox, 'nav-walk@example.com', 'Nav Walk');
    await approve(ctx.app, owner.merchantId);
    // One payment paid out (its payout's transaction hash names it), one with an order id, one more.
    const { paid, payoutId } = await seedBalance(ctx.db.db, owner.merchantId, { paid: 1, available: 0, payoutAt: new Date() });
    const paidOut = paid[0]!;
    const ordered = await seedPayment(ctx.db.db, owner.merchantId, 'completed');
    await ctx.db.sql`update checkout_sessions set order_id = 'ORDER-NAV-7' where id = ${ordered}`;
    await seedPayment(ctx.db.db, owner.merchantId, 'pending');
    const txHash = (await ctx.db.sql<{ tx_hash: string }[]>`select tx_hash from payouts where id = ${payoutId}`)[0]!.tx_hash;

    const context = screenshotsOnFailure(
      await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } }),
      'dashboard-navigation',
    );
    const page = await context.newPage();
    const problems = watchProblems(page);
    const base = `${ctx.baseUrl}/dashboard`;
    // The pages before a session, on a wide screen (the sign-up and password walks take them on a phone).
    await walkWithAxe(page, base, PUBLIC_PAGES, '1280 px');
    await page.goto(`${base}/sign-in`);
    // The pages before a session have no sections to show.
    expect(await page.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
    await page.getByLabel('Email').fill('nav-walk@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Nav Walk', level: 1 }).waitFor();

    // Desktop: the sidebar is there without a Menu button, Overview marked.
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    await expect.poll(() => current(page).allTextContents()).toEqual(['Overview']);
    expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/docs');
    await page.getByTestId('volume-chart').waitFor();
    await expectNoAxeViolations(page, 'overview with the sidebar');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-desktop-light.png'), fullPage: true });
    await showColorScheme(page, 'dark');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-desktop-dark.png'), fullPage: true });
    await showColorScheme(page, 'light');

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    await expect.poll(() => current(page).allTextContents()).toEqual(['Payments']);
    await expect.poll(() => page.getByTestId('payment').count()).toBe(3);

    // A payment's page: Payments stays marked, and the breadcrumbs lead back to the list.
    await page.getByRole('link', { name: ordered }).click();
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    await crumbs.getByText(`Payment ${ordered}`).waitFor();
    expect(await crumbs.locator('[aria-current="page"]').textContent()).toBe(`Payment ${ordered}`);
    expect(await current(page).allTextContents()).toEqual(['Payments']);
    await expectNoAxeViolations(page, 'a payment with breadcrumbs');
    await crumbs.getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();

    // A page inside Developers: its breadcrumbs name Developers, which is the section marked.
    await page.goto(`${base}/developers/deliveries`);
    await page.getByRole('heading', { name: 'Webhook deliveries', level: 1 }).waitFor();
    await expect.poll(() => current(page).allTextContents()).toEqual(['Developers']);
    await crumbs.getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { name: 'Developers', level: 1 }).waitFor();
    // One link's payments: its breadcrumbs lead back to the links.
    await page.goto(`${base}/payments?link=plink_nav7`);
    expect(await crumbs.locator('[aria-current="page"]').textContent()).toBe('Payments of link plink_nav7');
    await crumbs.getByRole('link', { name: 'Payment links' }).click();
    await page.getByRole('heading', { name: 'Payment links', level: 1 }).waitFor();

    // The search, from any page: Ctrl+K then a payment id; / then an order id; the button then the
    // payout's transaction hash. One match opens the payment.
    await search(page, () => page.keyboard.press('Control+k'), paidOut);
    await page.waitForURL(`${base}/payments/${paidOut}`);
    await page.getByRole('heading', { name: `Payment ${paidOut}` }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);

    await search(page, () => page.keyboard.press('/'), 'ORDER-NAV-7');
    await page.waitForURL(`${base}/payments/${ordered}`);
    await page.getByRole('heading', { name: `Payment ${ordered}` }).waitFor();

    await page.goto(`${base}/money`);
    await page.getByRole('heading', { name: 'Money', level: 1 }).waitFor();
    await search(page, () => page.getByRole('button', { name: /^Search payments/ }).click(), txHash);
    await page.waitForURL(`${base}/payments/${paidOut}`);
    await page.getByRole('heading', { name: `Payment ${paidOut}` }).waitFor();

    // Nothing found: said in the dialog, which stays open.
    await search(page, () => page.keyboard.press('Control+k'), 'NO-SUCH-ORDER');
    const dialog = page.getByRole('dialog', { name: 'Find a payment' });
    await dialog.getByText('No payment matches').waitFor();
    await expectNoAxeViolations(page, 'the search, nothing found');
    await screenshotBothSchemes(page, 'search-dialog-1280px');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Typed into a field, / is a character and opens nothing.
    await page.goto(`${base}/payments`);
    await page.getByLabel('Search').fill('a/b');
    expect(await page.getByLabel('Search').inputValue()).toBe('a/b');
    expect(await page.getByRole('dialog').count()).toBe(0);

    // Every section on a wide screen, light and dark.
    await walkWithAxe(page, base, [...SECTIONS, `/payments/${paidOut}`], '1280 px');

    // A phone: the sections behind Menu, closed again once one is chosen; no section wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Nav Walk', level: 1 }).waitFor();
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('navigation', { name: 'Sections' }).isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await expectNoAxeViolations(page, 'phone, menu open');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-phone-menu-light.png') });
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Money' }).click();
    await page.getByRole('heading', { name: 'Money', level: 1 }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('navigation', { name: 'Sections' }).isVisible()).toBe(false);

    const widths: Record<string, number> = {};
    for (const section of [...SECTIONS, `/payments/${paidOut}`, ...PUBLIC_PAGES]) {
      await page.goto(`${base}${section}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      widths[section] = await page.evaluate(
        () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
      );
    }
    expect(Object.entries(widths).filter(([, w]) => w > 390)).toEqual([]);
    // Every section on the phone, light and dark.
    await walkWithAxe(page, base, [...SECTIONS, `/payments/${paidOut}`], '390 px');
    await page.goto(`${base}/`);
    await page.getByTestId('volume-chart').waitFor();
    await showColorScheme(page, 'dark');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-phone-dark.png'), fullPage: true });

    expect(problems).toEqual([]);
    await context.close();
  });
});
