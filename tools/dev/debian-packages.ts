import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// The hosted pages are tested in a real browser. Playwright's own browser download cannot work on
// machines without internet, so the tests drive Debian's Chromium, installed from the package archive.
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function findChromium(): string | null {
  return CHROMIUM_CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export function ensureChromium(log: (line: string) => void = console.log): string {
  return ensureDebianPackage({ pkg: 'chromium', find: findChromium, purpose: 'the browser tests' }, log);
}

// The PHP webhook check of docs/webhooks.md runs in a test against a real delivery, with
// Debian's PHP command line, installed like Chromium.
export const PHP_CANDIDATES = ['/usr/bin/php'];

export function findPhp(): string | null {
  return PHP_CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export function ensurePhp(log: (line: string) => void = console.log): string {
  return ensureDebianPackage({ pkg: 'php-cli', find: findPhp, purpose: 'the PHP webhook check of docs/webhooks.md' }, log);
}

/** A Debian package's binary: found, or installed with apt-get (as root, or through sudo). */
function ensureDebianPackage(spec: { pkg: string; find: () => string | null; purpose: string }, log: (line: string) => void): string {
  const found = spec.find();
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasSudo = spawnSync('sh', ['-c', 'command -v sudo']).status === 0;
  if (!isRoot && !hasSudo) {
    throw new Error(`${spec.pkg} is not installed and this user cannot install it: run \`apt-get install ${spec.pkg}\` as root.`);
  }
  log(`Installing Debian’s ${spec.pkg} package for ${spec.purpose}…`);
  const run = (args: string[]) => {
    const [cmd, ...rest] = isRoot ? args : ['sudo', ...args];
    execFileSync(cmd!, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', spec.pkg]);
  const installed = spec.find();
  if (!installed) throw new Error(`apt-get finished but no ${spec.pkg} binary was found`);
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
