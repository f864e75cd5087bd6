import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// packages/verify-webhook: verify.ts is the source merchants copy; index.js and index.d.ts are what
// the package ships, generated from it so the two cannot drift (a test compares them with this
// output). Run `npm run build:verifier` after changing verify.ts.

export const VERIFIER_DIR = path.resolve(__dirname, '../packages/verify-webhook');

const BANNER = '// Generated from verify.ts by `npm run build:verifier`; edit verify.ts instead.\n';

export function renderVerifierPackage(source: string): { js: string; dts: string } {
  const js = ts.transpileModule(source, {
    fileName: 'verify.ts',
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, esModuleInterop: false, removeComments: false },
  }).outputText;
  const dts = ts.transpileDeclaration(source, { fileName: 'verify.ts', compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  return { js: BANNER + js, dts: BANNER + dts };
}

if (require.main === module) {
  const { js, dts } = renderVerifierPackage(readFileSync(path.join(VERIFIER_DIR, 'verify.ts'), 'utf8'));
  writeFileSync(path.join(VERIFIER_DIR, 'index.js'), js);
  writeFileSync(path.join(VERIFIER_DIR, 'index.d.ts'), dts);
  console.log(`wrote ${path.join(VERIFIER_DIR, 'index.js')} and index.d.ts`);
}
