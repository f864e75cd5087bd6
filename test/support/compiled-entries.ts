import { rmSync } from 'node:fs';
import path from 'node:path';
import { compiledEntry } from '../../tools/dev/entry-command';
import { transpileProduction } from '../../tools/dev/transpile';

const ROOT = path.resolve(__dirname, '../..');

/** Where the run's compiled entry points live: inside the project, as dist/ is, so they find its files. */
const COMPILED_DIR = path.join(ROOT, '.data', 'test-entries');

/**
 * What `npm run build` compiles, the same files the same way, under .data/test-entries, once for the
 * run (about a second). Why: a process started through tsx spends about twice the CPU loading its
 * modules as the same code compiled (tsx's resolver and loader hooks on every import): a worker's
 * start took 4.3 s of CPU through tsx and 3.0 s compiled on the 2-core machine, and the suite starts
 * dozens (docs/testing.md).
 */
export async function compileEntries(): Promise<void> {
  rmSync(COMPILED_DIR, { recursive: true, force: true });
  await transpileProduction(COMPILED_DIR);
}

/** The compiled form of a root entry point (`worker.ts` → `.data/test-entries/worker.js`): what the suite's processes run. */
export const compiledTestEntry = (entry: string): string => compiledEntry(entry, path.relative(ROOT, COMPILED_DIR));
