import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { RUNTIME_FILES } from './entry-command';

const ROOT = path.resolve(__dirname, '../..');

/** The TypeScript files of a folder (recursively) or the file itself, as paths from the project's root. */
export const typeScriptUnder = (entry: string): string[] =>
  entry.endsWith('.ts')
    ? [entry]
    : readdirSync(path.join(ROOT, entry), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
        .map((f) => path.join(entry, f));

/**
 * The project's own files that `entries` import, directly or through others (packages stay
 * outside): what a compiled entry point loads besides itself.
 */
export async function importedFiles(entries: string[]): Promise<string[]> {
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
export async function transpile(files: string[], outDir: string, options: { sourcemap?: boolean } = {}): Promise<void> {
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
