import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CODE_EXTENSION, CODE_ROOT, PROJECT_ROOT } from '../project-root';

/** The child's entry: bundles the workflow code and sends it back over IPC. */
const CHILD = path.join(__dirname, `workflow-bundle-child${CODE_EXTENSION}`);
/**
 * From source, tsx's loader, given to the child explicitly: whoever runs us (tsx, vitest), the child
 * loads TypeScript. Compiled code (production) needs none, and tsx is not installed there.
 */
const childExecArgv = () => (CODE_EXTENSION === '.ts' ? ['--import', pathToFileURL(createRequire(CHILD).resolve('tsx')).href] : []);

/**
 * Bundles the workflow code in a child process and gives the worker only the result. Bundling in the
 * worker itself (Worker.create with workflowsPath) leaves webpack's working memory in the worker's
 * heap for its whole life (measured: RSS 234 MiB after bundling in-process, 139 MiB with the
 * child); a child hands it back to the system when it exits. cachedWorkflowBundle keeps the
 * result between starts.
 */
export function bundleWorkflowsInChild(workflowsPath: string): Promise<{ code: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [workflowsPath], { execArgv: childExecArgv(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let code: string | null = null;
    child.on('message', (message) => {
      if (typeof message === 'string') code = message;
    });
    child.once('error', reject);
    child.once('exit', (status, signal) => {
      if (code !== null && status === 0) resolve({ code });
      else reject(new Error(`bundling the workflow code failed (exit ${status ?? signal})`));
    });
  });
}

export interface BundleCache {
  /** Every file, or folder read whole, that the bundle may be made of: the key is their content. */
  inputs: readonly string[];
  /** Where bundles are kept between starts, one file per key. */
  dir: string;
  /** Makes the bundle on a miss (default: bundleWorkflowsInChild). */
  bundle?: (workflowsPath: string) => Promise<{ code: string }>;
  /** Told when the cache cannot be written (a read-only image, say): the start goes on with the fresh bundle. */
  onWriteError?: (err: unknown) => void;
}

/** worker.ts's cache: every file of the code that runs (source or compiled) and the locked dependencies key it; it lives with the dependencies. */
export const WORKER_BUNDLE_CACHE = {
  inputs: [path.join(CODE_ROOT, 'src'), path.join(PROJECT_ROOT, 'package-lock.json'), path.join(PROJECT_ROOT, 'tsconfig.json')],
  dir: path.join(PROJECT_ROOT, 'node_modules', '.cache', 'svc-checkout', 'workflow-bundles'),
} as const satisfies Omit<BundleCache, 'bundle' | 'onWriteError'>;

/** How many bundles the cache keeps: the newest, so switching between a few checkouts stays fast. */
const KEPT_BUNDLES = 3;

/**
 * The workflow bundle, from the cache when every input is byte for byte what it was bundled from.
 * Bundling takes ~2.5 s of CPU at every worker start (measured on the 2-core bench machine: 5.0 s
 * from spawn to polling, 2.5 s of it webpack); after a crash that is time a backlog waits. The key
 * is a hash of the inputs' content (not their times), Node's version and the entry, so a bundle can
 * only be reused for exactly the code it was made from: a stale bundle would replay histories with
 * other code.
 */
export async function cachedWorkflowBundle(workflowsPath: string, cache: BundleCache): Promise<{ code: string; cached: boolean }> {
  const key = await bundleKey(workflowsPath, cache.inputs);
  const file = path.join(cache.dir, `${key}.js`);
  const hit = await readFile(file, 'utf8').catch(() => null);
  if (hit !== null) return { code: hit, cached: true };
  const { code } = await (cache.bundle ?? bundleWorkflowsInChild)(workflowsPath);
  await keep(cache.dir, file, code).catch((err: unknown) => cache.onWriteError?.(err));
  return { code, cached: false };
}

/** Writes the bundle whole or not at all (workers may start side by side), then drops the oldest. */
async function keep(dir: string, file: string, code: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, code);
  await rename(partial, file);
  const bundles = await Promise.all(
    (await readdir(dir))
      .filter((name) => name.endsWith('.js'))
      .map(async (name) => ({ name, mtime: (await stat(path.join(dir, name))).mtimeMs })),
  );
  bundles.sort((a, b) => b.mtime - a.mtime);
  await Promise.all(bundles.slice(KEPT_BUNDLES).map(({ name }) => rm(path.join(dir, name), { force: true })));
}

async function bundleKey(workflowsPath: string, inputs: readonly string[]): Promise<string> {
  const hash = createHash('sha256').update(`workflow-bundle 1\0${process.version}\0${path.resolve(workflowsPath)}\0`);
  for (const input of inputs) {
    for (const file of await filesOf(path.resolve(input)))
      hash
        .update(`${file}\0`)
        .update(await readFile(file))
        .update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

/** The file itself, or every file under the folder (sorted, so the key does not depend on listing order). */
async function filesOf(input: string): Promise<string[]> {
  if (!(await stat(input)).isDirectory()) return [input];
  const entries = await readdir(input, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
