import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// @foundry-rs/anvil ships the binary in one optional package per platform
// (@foundry-rs/anvil-linux-amd64, …), which npm installs without running any script. Its own
// postinstall only re-downloads that same package when the optional install was skipped; the
// project denies it in `allowScripts`, so the binary is resolved here from the platform package.

const ARCH: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

export class MissingAnvilError extends Error {}

/** The anvil binary: the platform package's, then one on PATH (a Foundry install). */
export function findAnvilBinary(): string | null {
  const arch = ARCH[process.arch];
  if (arch) {
    const name = `@foundry-rs/anvil-${process.platform}-${arch}/bin/anvil${process.platform === 'win32' ? '.exe' : ''}`;
    try {
      const resolved = require.resolve(name);
      if (existsSync(resolved)) return resolved;
    } catch {
      // Not installed for this platform; try PATH.
    }
  }
  const found = spawnSync('sh', ['-c', 'command -v anvil'], { encoding: 'utf8' });
  const onPath = found.stdout?.trim();
  return found.status === 0 && onPath ? onPath : null;
}

export function ensureAnvilBinary(): string {
  const binary = findAnvilBinary();
  if (binary) return binary;
  throw new MissingAnvilError(
    `No anvil binary: @foundry-rs/anvil has no package for ${process.platform}-${process.arch} installed.\n` +
      'Run `npm install` again, or install Foundry (https://getfoundry.sh) so that `anvil` is on PATH,\n' +
      'or point CHAIN_<NETWORK>_RPC_URL at a running node.',
  );
}
