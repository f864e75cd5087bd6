import { cpSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { compiledEntry, RUNTIME_FILES } from '../../tools/dev/entry-command';

const ROOT = path.resolve(__dirname, '../..');

/** Where the run's compiled entry points live: inside the project, as dist/ is, so they find its files. */
const COMPILED_DIR = path.join(ROOT, '.data', 'test-entries');

/** The folders and files an entry point can load (tsconfig.build.json's, with the tools they import). */
const SOURCES = ['src', 'sandbox', 'tools', 'scripts', 'packages/verify-webhook/verify.ts', 'server.ts', 'worker.ts', 'sandbox.ts'];

const typeScriptUnder = (entry: string): string[] =>
  entry.endsWith('.ts')
    ? [entry]
    : readdirSync(path.join(ROOT, entry), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
        .map((f) => path.join(entry, f));

/**
 * The project's TypeScript transpiled file by file to CommonJS under .data/test-entries, the same
 * folders as in the repository, with the files compiled code reads beside it (as `npm run build`
 * copies them). It is esbuild's per-file transform, the one tsx applies at each start, done once
 * for the run (about a second). Why: a process started through tsx spends about twice the CPU
 * loading its modules as the same code compiled (tsx's resolver and loader hooks on every import):
 * a worker's start took 4.3 s of CPU through tsx and 3.0 s compiled on the 2-core machine, and the
 * suite starts dozens (docs/testing.md).
 */
export async function compileEntries(): Promise<void> {
  rmSync(COMPILED_DIR, { recursive: true, force: true });
  await build({
    entryPoints: SOURCES.flatMap(typeScriptUnder).map((f) => path.join(ROOT, f)),
    outdir: COMPILED_DIR,
    outbase: ROOT,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  for (const dir of RUNTIME_FILES) cpSync(path.join(ROOT, dir), path.join(COMPILED_DIR, dir), { recursive: true });
}

/** The compiled form of a root entry point (`worker.ts` → `.data/test-entries/worker.js`): what the suite's processes run. */
export const compiledTestEntry = (entry: string): string => compiledEntry(entry, path.relative(ROOT, COMPILED_DIR));
