import { existsSync } from 'node:fs';
import path from 'node:path';

// The same code runs from the repository (TypeScript through tsx, in development and tests) and from
// `dist/` (compiled JavaScript, in production): paths to the project's own files are found from the
// project's root, the nearest folder up with a package.json, never counted in `..` from a source file.

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PROJECT_ROOT = findProjectRoot(__dirname);

/** The folder holding `src/` as it runs: the repository, or `dist/` for compiled code. */
export const CODE_ROOT = path.dirname(__dirname);

/** `.ts` from source, `.js` compiled: the extension of the code running now. */
export const CODE_EXTENSION = path.extname(__filename);
