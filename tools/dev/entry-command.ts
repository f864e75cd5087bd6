import path from 'node:path';

const TSX_CLI = require.resolve('tsx/cli');

/**
 * Node flags for a worker process (worker.ts; the bench's minimal worker alike). V8 sizes the young
 * generation from the heap limit, for the main thread and again for the workflow thread; a worker's
 * garbage is short-lived (activations, activity calls, RPC buffers), so 4 MiB semi-spaces cost it
 * no measurable throughput and keep ~60-100 MiB off its resident memory at load (bench: worker RSS
 * 432 -> 323-368 MiB). Flags on the command line reach the workflow thread too; set from inside the
 * process (v8.setFlagsFromString) they came too late for half of it. package.json's `worker` script
 * and the compose file spell the same flag out.
 */
export const WORKER_NODE_FLAGS = ['--max-semi-space-size=4'];

const isWorker = (entry: string) => /^worker\.[jt]s$/.test(path.basename(entry));

/**
 * `node <args>` for an entry point with its Node flags: a TypeScript one through tsx, as every
 * development launcher here runs it; a compiled one (`dist/worker.js`, production) by Node itself.
 */
export function entryCommandArgs(entry: string): string[] {
  const flags = isWorker(entry) ? WORKER_NODE_FLAGS : [];
  return runsThroughTsx(entry) ? [TSX_CLI, ...flags, entry] : [...flags, entry];
}

/** Whether entryCommandArgs starts the entry through tsx: a launcher process, then the node process that runs it. */
export const runsThroughTsx = (entry: string): boolean => !entry.endsWith('.js');

/** What compiled code reads beside it at run time, copied next to it by `npm run build`: the hosted pages' assets, the SQL migrations. */
export const RUNTIME_FILES = ['src/api/hosted/assets', 'src/db/migrations'];

/**
 * The compiled entry point made of a TypeScript one, as a path from the project's root: `npm run
 * build`'s by default (`worker.ts` → `dist/worker.js`), or another build's folder (the test suite's).
 */
export const compiledEntry = (entry: string, outDir = 'dist'): string => path.join(outDir, entry.replace(/\.ts$/, '.js'));
