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

/** `node <args>` for a TypeScript entry point, run through tsx as every launcher here runs it, with its Node flags. */
export function entryCommandArgs(entry: string): string[] {
  return [TSX_CLI, ...(path.basename(entry) === 'worker.ts' ? WORKER_NODE_FLAGS : []), entry];
}
