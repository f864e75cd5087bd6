import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKFLOWS_ENTRY } from '../../src/worker/worker';
import { bundleWorkflowsInChild, cachedWorkflowBundle, WORKER_BUNDLE_CACHE } from '../../src/worker/workflow-bundle';

const ROOT = path.resolve(__dirname, '..', '..');
const TSX_CLI = require.resolve('tsx/cli');

describe('the workflow bundle cache', () => {
  let dir: string;
  let sources: string;
  let cacheDir: string;
  let bundles: string[];
  // A stand-in for webpack that says what it was asked: the cache's logic, not the bundler, is under test here.
  const bundle = async (workflowsPath: string) => {
    bundles.push(workflowsPath);
    return { code: `// bundle ${bundles.length} of ${workflowsPath}` };
  };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bundle-cache-'));
    sources = path.join(dir, 'src');
    cacheDir = path.join(dir, 'cache');
    await mkdir(path.join(sources, 'workflows'), { recursive: true });
    await writeFile(path.join(sources, 'workflows', 'index.ts'), 'export * from "./a";\n');
    await writeFile(path.join(sources, 'workflows', 'a.ts'), 'export const a = 1;\n');
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3}\n');
    bundles = [];
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const entry = () => path.join(sources, 'workflows', 'index.ts');
  const cache = () => ({ inputs: [sources, path.join(dir, 'package-lock.json')], dir: cacheDir, bundle });

  it('bundles once, then serves the same code while the inputs are unchanged', async () => {
    const first = await cachedWorkflowBundle(entry(), cache());
    expect(first).toEqual({ code: `// bundle 1 of ${entry()}`, cached: false });
    const again = await cachedWorkflowBundle(entry(), cache());
    expect(again).toEqual({ code: first.code, cached: true });
    expect(bundles).toHaveLength(1);
    expect(await readdir(cacheDir)).toHaveLength(1);
  });

  it('bundles again when any input changes, even by one byte with the same modification time', async () => {
    await cachedWorkflowBundle(entry(), cache());
    const file = path.join(sources, 'workflows', 'a.ts');
    const when = new Date('2026-01-01T00:00:00Z');
    await utimes(file, when, when);
    await cachedWorkflowBundle(entry(), cache());
    expect(bundles).toHaveLength(1);
    await writeFile(file, 'export const a = 2;\n');
    await utimes(file, when, when);
    const changed = await cachedWorkflowBundle(entry(), cache());
    expect(changed).toEqual({ code: `// bundle 2 of ${entry()}`, cached: false });
    // A new file in a folder input, and the dependencies' lock file, are inputs too.
    await writeFile(path.join(sources, 'workflows', 'b.ts'), 'export const b = 1;\n');
    expect((await cachedWorkflowBundle(entry(), cache())).cached).toBe(false);
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}\n');
    expect((await cachedWorkflowBundle(entry(), cache())).cached).toBe(false);
    expect(bundles).toHaveLength(4);
  });

  it('keeps the three newest bundles', async () => {
    for (let i = 0; i < 5; i++) {
      await writeFile(path.join(sources, 'workflows', 'a.ts'), `export const a = ${i};\n`);
      await cachedWorkflowBundle(entry(), cache());
    }
    expect((await readdir(cacheDir)).filter((name) => name.endsWith('.js'))).toHaveLength(3);
  });

  it('starts with a fresh bundle when the cache cannot be written, and says so', async () => {
    // A file where the cache's folder should be: unwritable even for root (CI runs as root).
    await writeFile(path.join(dir, 'blocker'), '');
    const problems: unknown[] = [];
    const blocked = { ...cache(), dir: path.join(dir, 'blocker', 'cache'), onWriteError: (err: unknown) => problems.push(err) };
    expect(await cachedWorkflowBundle(entry(), blocked)).toEqual({ code: `// bundle 1 of ${entry()}`, cached: false });
    expect(problems).toEqual([expect.objectContaining({ code: 'ENOTDIR' })]);
    expect((await cachedWorkflowBundle(entry(), blocked)).cached).toBe(false);
    expect(bundles).toHaveLength(2);
  });

  it("keys worker.ts's bundle on every source file webpack puts into it", async () => {
    const { code } = await bundleWorkflowsInChild(WORKFLOWS_ENTRY);
    const modules = [...new Set([...code.matchAll(/"\.\/((?:src|node_modules)\/[^"]+?\.(?:ts|js|mjs|cjs))"/g)].map((m) => m[1]!))];
    const ours = modules.filter((m) => !m.startsWith('node_modules/'));
    expect(ours).toContain('src/workflows/index.ts');
    const inputs = WORKER_BUNDLE_CACHE.inputs.map((input) => path.relative(ROOT, input));
    for (const file of ours)
      expect(
        inputs.some((input) => file === input || file.startsWith(`${input}/`)),
        file,
      ).toBe(true);
    // What comes from node_modules is pinned by the lock file.
    expect(modules.some((m) => m.startsWith('node_modules/@temporalio/workflow/'))).toBe(true);
    expect(inputs).toContain('package-lock.json');
  });

  it('is filled ahead of the first start by scripts/bundle-workflows.ts (the Dockerfile runs it)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [TSX_CLI, 'scripts/bundle-workflows.ts'], { cwd: ROOT });
    expect(stdout).toMatch(/workflow bundle (already cached|bundled and cached) in /);
    const started = await cachedWorkflowBundle(WORKFLOWS_ENTRY, { ...WORKER_BUNDLE_CACHE, bundle });
    expect(started.cached).toBe(true);
    expect(bundles).toEqual([]);
  });
});
