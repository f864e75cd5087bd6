import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureDashboardBuild } from '../tools/dev/dashboard-build';
import { transpileProduction } from '../tools/dev/transpile';

// `npm run build`: transpiles the production code to JavaScript (tools/dev/transpile.ts: CommonJS,
// per file, the same folders under dist/ as in the repository, with source maps) and copies the
// files it reads at run time beside it: the hosted pages' assets and the SQL migrations; and the
// merchant dashboard's browser files (Vite, into dist/dashboard, skipped when already built).
// Production runs `node dist/server.js`, `node dist/worker.js`, `node dist/sandbox.js`; tsx is for
// development. It checks no types: `npm run typecheck` does (CI, and the image's build stage, run it
// first). `--out-dir <dir>` builds elsewhere (the topology test does).

const ROOT = path.resolve(__dirname, '..');

const at = process.argv.indexOf('--out-dir');
const outDir = path.resolve(ROOT, at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : 'dist');

async function main(): Promise<void> {
  // Compiled code from an earlier build goes (a deleted source leaves nothing behind); the dashboard keeps its own cache.
  mkdirSync(outDir, { recursive: true });
  for (const entry of readdirSync(outDir, { withFileTypes: true }).filter((e) => e.name !== 'dashboard')) {
    rmSync(path.join(outDir, entry.name), { recursive: true, force: true });
  }
  await transpileProduction(outDir, { sourcemap: true });
  const { dir } = await ensureDashboardBuild(console.log);
  console.log(`built ${path.relative(ROOT, outDir) || '.'} and ${path.relative(ROOT, dir)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
