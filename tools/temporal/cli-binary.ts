import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

// The Temporal CLI carries the dev server. Later tags than v1.5.1 carry a `replace` directive
// that `go install` refuses, so this version is pinned.
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
import { PROJECT_ROOT } from '../../src/project-root';

export { PROJECT_ROOT };
export const TOOLS_BIN = path.join(PROJECT_ROOT, '.tools', 'bin');

function onPath(name: string): string | null {
  const result = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : null;
}

/** The temporal binary to use: the project's own install first, then one on PATH. */
export function findTemporalBinary(): string | null {
  const local = path.join(TOOLS_BIN, 'temporal');
  if (existsSync(local)) return local;
  return onPath('temporal');
}

export class MissingToolError extends Error {}

/** Installs the pinned CLI into .tools/bin with `go install` when no binary is found. */
export function ensureTemporalBinary(log: (line: string) => void = console.log): string {
  const found = findTemporalBinary();
  if (found) return found;
  const go = onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
  if (!go) {
    throw new MissingToolError(
      'The Temporal CLI is not installed and Go is not available to build it.\n' +
        `Install Go (https://go.dev/dl/) and run \`npm run temporal:install\`, or put a \`temporal\` binary on PATH,\n` +
        'or set TEMPORAL_ADDRESS to a running Temporal server.',
    );
  }
  mkdirSync(TOOLS_BIN, { recursive: true });
  log(`Installing the Temporal CLI (${TEMPORAL_CLI_MODULE}) into ${TOOLS_BIN}; the first build takes a few minutes…`);
  execFileSync(go, ['install', TEMPORAL_CLI_MODULE], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: TOOLS_BIN },
  });
  const installed = path.join(TOOLS_BIN, 'temporal');
  if (!existsSync(installed)) throw new MissingToolError(`go install finished but ${installed} is missing`);
  return installed;
}
