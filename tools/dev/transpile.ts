import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { RUNTIME_FILES } from './entry-command';

const ROOT = path.resolve(__dirname, '../..');

/** The processes production starts, and the scripts its images run. */
const ENTRIES = ['server.ts', 'worker.ts', 'sandbox.ts', 'scripts/bundle-workflows.ts', 'scripts/temporal-server.ts'];
/** Transpiled whole (a path can load a file no import names: the workflow bundle's entry), with all they import. */
const FOLDERS = ['src', 'sandbox'];

/**
 * What production runs, transpiled into `outDir`: the entry points, `src/` and `sandbox/`, and every
 * file of the project they import, with the files compiled code reads beside it. `npm run build`
 * makes dist/ of it, and the test suite the entry points its processes run.
 */
export async function transpileProduction(outDir: string, options: { sourcemap?: boolean } = {}): Promise<void> {
  await transpile(await importedFiles([...ENTRIES, ...FOLDERS.flatMap(typeScriptUnder)]), outDir, options);
}

/** The TypeScript files of a folder, recursively, as paths from the project's root. */
const typeScriptUnder = (folder: string): string[] =>
  readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(folder, f));

/**
 * The project's own files that `entries` import, directly or through others (packages stay
 * outside): what a compiled entry point loads besides itself.
 */
async function importedFiles(entries: string[]): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: entries.map((f) => path.join(ROOT, f)),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'cjs',
    write: false,
    metafile: true,
    outdir: 'unused',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  // Paths in the metafile are relative to the working directory.
  return Object.keys(metafile.inputs).map((f) => path.relative(ROOT, path.resolve(f)));
}

/**
 * `files` (paths from the project's root) transpiled one by one to CommonJS under `outDir`, the
 * same folders as in the repository, with the files compiled code reads beside it. esbuild's
 * per-file transform, the one tsx applies at every start, in about a second; it checks no types
 * (`npm run typecheck` does, before any build CI runs).
 */
async function transpile(files: string[], outDir: string, options: { sourcemap?: boolean } = {}): Promise<void> {
  await build({
    entryPoints: [...new Set(files)].map((f) => path.join(ROOT, f)),
    outdir: outDir,
    outbase: ROOT,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: options.sourcemap ?? false,
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  for (const dir of RUNTIME_FILES) cpSync(path.join(ROOT, dir), path.join(outDir, dir), { recursive: true });
}
