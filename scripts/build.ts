import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureDashboardBuild } from '../tools/dev/dashboard-build';
import { RUNTIME_FILES } from '../tools/dev/entry-command';

// `npm run build`: compiles the production code to JavaScript (tsconfig.build.json) and copies the
// files it reads at run time beside it: the hosted pages' assets and the SQL migrations; and the
// merchant dashboard's browser files (Vite, into dist/dashboard, skipped when already built). Production
// runs `node dist/server.js`, `node dist/worker.js`, `node dist/sandbox.js`; tsx is for development.
// `--out-dir <dir>` builds elsewhere (the build's own test does).

const ROOT = path.resolve(__dirname, '..');

const at = process.argv.indexOf('--out-dir');
const outDir = path.resolve(ROOT, at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : 'dist');

// Compiled code from an earlier build goes (a deleted source leaves nothing behind); the dashboard keeps its own cache.
mkdirSync(outDir, { recursive: true });
for (const entry of readdirSync(outDir, { withFileTypes: true }).filter((e) => e.name !== 'dashboard')) {
  rmSync(path.join(outDir, entry.name), { recursive: true, force: true });
}
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', outDir], {
  cwd: ROOT,
  stdio: 'inherit',
});
for (const dir of RUNTIME_FILES) cpSync(path.join(ROOT, dir), path.join(outDir, dir), { recursive: true });
void ensureDashboardBuild(console.log).then(({ dir }) =>
  console.log(`built ${path.relative(ROOT, outDir) || '.'} and ${path.relative(ROOT, dir)}`),
);
