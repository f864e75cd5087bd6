import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { animationsSettled, showColorScheme } from '../support/axe';

/** With DASH_SHOTS=<folder>: the dashboard walks save screenshots there, light and dark, to look at. */
const SHOTS = process.env.DASH_SHOTS;

/** The page as it is now, light then dark, as `<name>-light.png` and `<name>-dark.png`; nothing without DASH_SHOTS. */
export async function screenshotBothSchemes(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await showColorScheme(page, scheme);
    await animationsSettled(page);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`), fullPage: options.fullPage ?? false });
  }
  await showColorScheme(page, 'light');
}
