import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { CHROMIUM_ARGS, findChromium } from '../../src/devtools/chromium';

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
