import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// The merchant dashboard's browser code (dashboard/) is built by Vite into dist/dashboard, which the
// service serves at /dashboard/. `npm start` and `npm test`'s pretest call this; the build runs only
// when the sources or the locked dependency versions changed since the last one (their hash is kept
// beside the output), so a second start costs a hash of a few files.

import { PROJECT_ROOT } from '../../src/project-root';

export const DASHBOARD_SOURCE = path.join(PROJECT_ROOT, 'dashboard');
export const DASHBOARD_DIST = path.join(PROJECT_ROOT, 'dist', 'dashboard');
const HASH_FILE = '.source-hash';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

/**
 * One hash of everything the build reads: the dashboard's files, the pure domain modules it imports
 * (its form schemas, lists and formats), the lockfile and this file (how it builds).
 */
export function dashboardSourceHash(): string {
  const hash = createHash('sha256');
  const domain = path.join(PROJECT_ROOT, 'src', 'domain');
  for (const file of [...filesUnder(DASHBOARD_SOURCE), ...filesUnder(domain), path.join(PROJECT_ROOT, 'package-lock.json'), __filename]) {
    hash.update(path.relative(PROJECT_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/**
 * A brotli (.br) and a gzip (.gz) copy beside each script and stylesheet, made once at their best
 * (slowest) settings, so the service sends them as they are instead of compressing on every request.
 */
function precompress(assetsDir: string): void {
  for (const file of readdirSync(assetsDir).filter((f) => /\.(js|css|svg)$/.test(f))) {
    const body = readFileSync(path.join(assetsDir, file));
    writeFileSync(
      path.join(assetsDir, `${file}.br`),
      brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    );
    writeFileSync(path.join(assetsDir, `${file}.gz`), gzipSync(body, { level: 9 }));
  }
}

/** Builds dist/dashboard unless it is already built from the same sources; answers whether it built. */
export async function ensureDashboardBuild(log: (line: string) => void = () => {}): Promise<{ built: boolean; dir: string }> {
  const hash = dashboardSourceHash();
  const hashFile = path.join(DASHBOARD_DIST, HASH_FILE);
  if (existsSync(hashFile) && readFileSync(hashFile, 'utf8') === hash) return { built: false, dir: DASHBOARD_DIST };
  log('Building the merchant dashboard (dashboard/ → dist/dashboard)…');
  rmSync(DASHBOARD_DIST, { recursive: true, force: true });
  // Vite is a development dependency: loaded only when a build is needed (the production image builds in its own stage).
  const { build } = await import('vite');
  await build({ configFile: path.join(DASHBOARD_SOURCE, 'vite.config.mts'), logLevel: 'warn' });
  precompress(path.join(DASHBOARD_DIST, 'assets'));
  writeFileSync(hashFile, hash);
  return { built: true, dir: DASHBOARD_DIST };
}
