import { rmSync } from 'node:fs';
import path from 'node:path';
import { compiledEntry } from '../../tools/dev/entry-command';
import { transpile, typeScriptUnder } from '../../tools/dev/transpile';

const ROOT = path.resolve(__dirname, '../..');

/** Where the run's compiled entry points live: inside the project, as dist/ is, so they find its files. */
const COMPILED_DIR = path.join(ROOT, '.data', 'test-entries');

/** The folders and files an entry point can load (`npm run build`'s, with every tool and script). */
const SOURCES = ['src', 'sandbox', 'tools', 'scripts', 'packages/verify-webhook/verify.ts', 'server.ts', 'worker.ts', 'sandbox.ts'];

/**
 * The project's TypeScript transpiled file by file to CommonJS under .data/test-entries, as `npm run
 * build` does, once for the run (about a second). Why: a process started through tsx spends about
 * twice the CPU loading its modules as the same code compiled (tsx's resolver and loader hooks on
 * every import): a worker's start took 4.3 s of CPU through tsx and 3.0 s compiled on the 2-core
 * machine, and the suite starts dozens (docs/testing.md).
 */
export async function compileEntries(): Promise<void> {
  rmSync(COMPILED_DIR, { recursive: true, force: true });
  await transpile(SOURCES.flatMap(typeScriptUnder), COMPILED_DIR);
}

/** The compiled form of a root entry point (`worker.ts` → `.data/test-entries/worker.js`): what the suite's processes run. */
export const compiledTestEntry = (entry: string): string => compiledEntry(entry, path.relative(ROOT, COMPILED_DIR));
