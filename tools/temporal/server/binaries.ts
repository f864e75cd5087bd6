import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { MissingToolError, TOOLS_BIN } from '../cli-binary';

// The production Temporal server and its schema tool, built from the same module version as the
// images docker-compose.yml pins (1.29.1), so a local run and the compose topology agree.
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';
const PACKAGES = [
  { pkg: `${MODULE}/cmd/server`, built: 'server', name: 'temporal-server' },
  { pkg: `${MODULE}/cmd/tools/sql`, built: 'sql', name: 'temporal-sql-tool' },
] as const;

export interface ServerBinaries {
  server: string;
  sqlTool: string;
  /** The module's source in the Go module cache: its schema/postgresql/v12 holds the schemas. */
  moduleDir: string;
}

function goBinary(): string {
  const found = spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  if (existsSync('/usr/local/go/bin/go')) return '/usr/local/go/bin/go';
  throw new MissingToolError('Go is needed to build the Temporal server (https://go.dev/dl/); none was found on PATH.');
}

/** The module's directory in the Go module cache, downloaded when absent (a no-op once cached). */
export function moduleDir(go = goBinary()): string {
  const out = execFileSync(go, ['mod', 'download', '-json', `${MODULE}@${TEMPORAL_SERVER_VERSION}`], { encoding: 'utf8' });
  const dir = (JSON.parse(out) as { Dir?: string }).Dir;
  if (!dir || !existsSync(dir)) throw new MissingToolError(`go mod download gave no directory for ${MODULE}@${TEMPORAL_SERVER_VERSION}`);
  return dir;
}

/**
 * Installs the server and the SQL tool into .tools/bin when missing. `go install` names binaries
 * after their package (`server`, `sql`), too generic for a shared bin folder, so they are built in a
 * folder of their own and renamed.
 */
export function ensureServerBinaries(log: (line: string) => void = console.log): ServerBinaries {
  const go = goBinary();
  const target = (name: string) => path.join(TOOLS_BIN, name);
  const missing = PACKAGES.filter((p) => !existsSync(target(p.name)));
  if (missing.length > 0) {
    const buildDir = path.join(TOOLS_BIN, '..', 'build-temporal-server');
    mkdirSync(buildDir, { recursive: true });
    log(
      `Building ${missing.map((p) => p.name).join(' and ')} (${MODULE}@${TEMPORAL_SERVER_VERSION}); the first build takes several minutes…`,
    );
    execFileSync(go, ['install', ...missing.map((p) => `${p.pkg}@${TEMPORAL_SERVER_VERSION}`)], {
      stdio: 'inherit',
      env: { ...process.env, GOBIN: buildDir },
    });
    for (const p of missing) renameSync(path.join(buildDir, p.built), target(p.name));
  }
  return { server: target('temporal-server'), sqlTool: target('temporal-sql-tool'), moduleDir: moduleDir(go) };
}
