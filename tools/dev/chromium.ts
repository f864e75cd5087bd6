import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// The hosted pages are tested in a real browser. Playwright's own browser download cannot work on
// machines without internet, so the tests drive Debian's Chromium, installed from the package archive.
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function findChromium(): string | null {
  return CHROMIUM_CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export function ensureChromium(log: (line: string) => void = console.log): string {
  const found = findChromium();
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasSudo = spawnSync('sh', ['-c', 'command -v sudo']).status === 0;
  if (!isRoot && !hasSudo) {
    throw new Error('Chromium is not installed and this user cannot install it: run `apt-get install chromium` as root.');
  }
  log('Installing Debian’s chromium package for the browser tests…');
  const run = (args: string[]) => {
    const [cmd, ...rest] = isRoot ? args : ['sudo', ...args];
    execFileSync(cmd!, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium']);
  const installed = findChromium();
  if (!installed) throw new Error('apt-get finished but no chromium binary was found');
  return installed;
}

/** Flags for a headless run on a closed network (no background connections, no sandbox as root). */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
