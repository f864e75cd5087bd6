import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, onTestFailed } from 'vitest';
import { CHROMIUM_ARGS, findChromium } from '../../tools/dev/debian-packages';

/** Where browser tests leave their screenshots (git-ignored), to be looked at after a run. */
export const ARTIFACTS = path.resolve(__dirname, '../.artifacts');

/** Debian's Chromium, headless, for one test file; `npm test`'s pretest step installs it. */
export function useBrowser(): { browser: Browser } {
  const ctx = {} as { browser: Browser };
  beforeAll(async () => {
    const executablePath = findChromium();
    if (!executablePath) throw new Error('Chromium is missing: `npm test` installs it in its pretest step (scripts/prepare-tests.ts).');
    ctx.browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await ctx.browser?.close();
  });
  return ctx;
}

/** If the running test fails, a full-page screenshot of every page `context` holds then, in ARTIFACTS. */
export function screenshotsOnFailure(context: BrowserContext, name: string): BrowserContext {
  onTestFailed(async () => {
    for (const [i, page] of context.pages().entries()) {
      await page.screenshot({ path: path.join(ARTIFACTS, `failed-${name}-${i}.png`), fullPage: true }).catch(() => {});
    }
  });
  return context;
}

/** The page's console errors and uncaught exceptions (a CSP refusal is one), collected as they happen. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return problems;
}

/** A section of the dashboard from its sidebar, opened first with the Menu button on a phone's width. */
export async function openSection(page: Page, name: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
}
