import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../tools/dev/debian-packages';

// `npx tsx scripts/dashboard-first-paint.ts [base URL]`: the dashboard's first paint on a throttled
// phone, measured against a running instance (`npm start`: http://127.0.0.1:3000 by default). The
// profile is Lighthouse's mobile one: a 390 × 844 screen, 150 ms round trips, 1.6 Mbit/s down,
// 750 kbit/s up, a CPU four times slower. A figure to read, not a test: a loaded machine moves it.
// The target is 1.5 s for the sign-in page, the first one a visitor gets, from an empty cache. The
// largest contentful paint is printed beside it: when the page's own content (its form) shows, after
// the app's code came and ran, where the first paint is the page's frame, sent in its HTML.

const TARGET_MS = 1500;
const PAGES = ['/dashboard/sign-in', '/dashboard/sign-up'];

interface FirstPaint {
  path: string;
  firstContentfulPaintMs: number;
  /** The last largest-contentful-paint candidate by the time the page's heading is there. */
  largestContentfulPaintMs: number;
  /** Bytes over the wire (compressed) of the page and every file it loaded. */
  transferredBytes: number;
  files: number;
}

// Run in the page (a string: the page's globals, not this file's compiled helpers). Paint entries are
// queued: an observer hands over the buffered ones, the last of each kind being the one that counts.
const IN_PAGE = `(async () => {
  const last = (type, name) => new Promise((resolve) => {
    const observer = new PerformanceObserver((list) => {
      const entry = list.getEntries().filter((e) => !name || e.name === name).at(-1);
      if (!entry) return;
      observer.disconnect();
      resolve(entry.startTime);
    });
    observer.observe({ type, buffered: true });
  });
  const [fcp, lcp] = await Promise.all([last('paint', 'first-contentful-paint'), last('largest-contentful-paint')]);
  const loaded = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  return {
    firstContentfulPaintMs: Math.round(fcp),
    largestContentfulPaintMs: Math.round(lcp),
    transferredBytes: loaded.reduce((n, e) => n + (e.transferSize ?? 0), 0),
    files: loaded.length,
  };
})()`;

export async function measureFirstPaint(baseUrl: string): Promise<FirstPaint[]> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('Chromium is missing: `npm test`’s pretest installs it (scripts/prepare-tests.ts).');
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const results: FirstPaint[] = [];
  try {
    for (const path of PAGES) {
      // A context of its own for each page: an empty cache, as a first visit has.
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 150,
        downloadThroughput: (1.6 * 1024 * 1024) / 8,
        uploadThroughput: (750 * 1024) / 8,
      });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await page.goto(`${baseUrl}${path}`, { waitUntil: 'load' });
      await page.getByRole('heading', { level: 1 }).waitFor();
      const figures = await page.evaluate<Omit<FirstPaint, 'path'>>(IN_PAGE);
      results.push({ path, ...figures });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return results;
}

if (require.main === module) {
  const baseUrl = (process.argv[2] ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
  measureFirstPaint(baseUrl).then(
    (results) => {
      for (const r of results) {
        const verdict = r.firstContentfulPaintMs <= TARGET_MS ? 'within' : 'over';
        console.log(
          `${r.path}: first contentful paint ${r.firstContentfulPaintMs} ms (${verdict} the ${TARGET_MS} ms target), ` +
            `largest contentful paint ${r.largestContentfulPaintMs} ms, ${Math.round(r.transferredBytes / 1024)} KiB in ${r.files} files`,
        );
      }
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
