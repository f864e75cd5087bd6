import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { TOOLS_BIN } from '../temporal/cli-binary';

// promtool checks the /metrics exposition and runs the alerting rules' unit tests (ops/prometheus).
// The project's tools live in .tools/bin (as the Temporal CLI and server do); Prometheus publishes
// promtool as a Go command, so a bare machine builds it with `go install` at a pinned version.
export const PROMTOOL_MODULE = 'github.com/prometheus/prometheus/cmd/promtool@v0.316.0';
export const PROMTOOL_PATH = path.join(TOOLS_BIN, 'promtool');

export class MissingPromtoolError extends Error {}

function goBinary(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null;
}

/** The project's promtool, installed into .tools/bin when missing. */
export function ensurePromtool(log: (line: string) => void = console.log): string {
  if (existsSync(PROMTOOL_PATH)) return PROMTOOL_PATH;
  const go = goBinary();
  if (!go) {
    throw new MissingPromtoolError(
      `promtool is not installed and Go is not available to build it: install Go and run \`npm run pretest\`, or put promtool at ${PROMTOOL_PATH}.`,
    );
  }
  mkdirSync(path.dirname(PROMTOOL_PATH), { recursive: true });
  log(`Installing promtool (${PROMTOOL_MODULE}) into ${path.dirname(PROMTOOL_PATH)}; the first build takes a few minutes…`);
  execFileSync(go, ['install', PROMTOOL_MODULE], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: path.dirname(PROMTOOL_PATH) },
  });
  if (!existsSync(PROMTOOL_PATH)) throw new MissingPromtoolError(`go install finished but ${PROMTOOL_PATH} is missing`);
  return PROMTOOL_PATH;
}
