import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { guidesText } from './guides';

// The merchants' verifiers, used the way docs/webhooks.md tells merchants to: the file copied into a
// directory of their own, the package folder installed into a node_modules, the shell recipe pasted
// into bash. Each runs in its own process, outside the repository (no tsconfig, no node_modules).

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const TSX_CLI = require.resolve('tsx/cli');
const PACKAGE_DIR = path.join(ROOT, 'packages/verify-webhook');

export interface VerifyCase {
  name: string;
  /** The raw body, as received. */
  body: string;
  header: string | undefined;
  secret: string;
  /** The receiver's clock, if not now. */
  nowMs?: number;
}

export type Verdicts = Record<string, { ok: boolean; reason?: string }>;

/** The guides' Node snippet: its import line, and the repository file its comment says to copy. */
export function readmeVerifierSnippet(): { importLine: string; source: string } {
  const match = /^(import \{ verifyWebhook \} from '[^']+';) \/\/ (\S+), copied as is$/m.exec(guidesText());
  if (!match) throw new Error('the guides: no `import { verifyWebhook } … // <file>, copied as is` line');
  return { importLine: match[1]!, source: match[2]! };
}

/** The guides' bash recipe: the code block after "With plain shell and openssl". */
export function readmeShellRecipe(): string {
  const text = guidesText();
  const at = text.indexOf('With plain shell and openssl');
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (at < 0 || !block) throw new Error('the guides: no shell recipe after "With plain shell and openssl"');
  return block[1]!;
}

function driver(importLine: string): string {
  return `${importLine}
import { readFileSync } from 'node:fs';
const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = {};
for (const c of cases) out[c.name] = verifyWebhook(Buffer.from(c.body, 'utf8'), c.header, c.secret, c.nowMs ? { now: new Date(c.nowMs) } : {});
process.stdout.write(JSON.stringify(out));
`;
}

async function inTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'merchant-'));
  try {
    return await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The README's TypeScript snippet, with the file it names copied beside it, run with tsx. */
export function verifyWithCopiedFile(cases: VerifyCase[]): Promise<Verdicts> {
  const { importLine, source } = readmeVerifierSnippet();
  const target = /from '(\.\/[^']+)'/.exec(importLine)![1]!;
  return inTempDir(async (dir) => {
    copyFileSync(path.join(ROOT, source), path.join(dir, `${target}${path.extname(source)}`));
    writeFileSync(path.join(dir, 'check.ts'), driver(importLine));
    writeFileSync(path.join(dir, 'cases.json'), JSON.stringify(cases));
    const { stdout } = await run(process.execPath, [TSX_CLI, 'check.ts', 'cases.json'], { cwd: dir });
    return JSON.parse(stdout) as Verdicts;
  });
}

/** The package folder installed as `svc-verify-webhook`, loaded by plain Node from CommonJS and from ESM. */
export function verifyWithPackage(cases: VerifyCase[]): Promise<{ cjs: Verdicts; esm: Verdicts }> {
  return inTempDir(async (dir) => {
    const installed = path.join(dir, 'node_modules/svc-verify-webhook');
    mkdirSync(installed, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { files: string[] };
    for (const file of ['package.json', ...manifest.files]) copyFileSync(path.join(PACKAGE_DIR, file), path.join(installed, file));
    writeFileSync(path.join(dir, 'cases.json'), JSON.stringify(cases));
    writeFileSync(path.join(dir, 'check.mjs'), driver("import { verifyWebhook } from 'svc-verify-webhook';"));
    writeFileSync(
      path.join(dir, 'check.cjs'),
      driver("const { verifyWebhook } = require('svc-verify-webhook');").replace(
        "import { readFileSync } from 'node:fs';",
        "const { readFileSync } = require('node:fs');",
      ),
    );
    const [cjs, esm] = await Promise.all(['check.cjs', 'check.mjs'].map((f) => run(process.execPath, [f, 'cases.json'], { cwd: dir })));
    return { cjs: JSON.parse(cjs!.stdout) as Verdicts, esm: JSON.parse(esm!.stdout) as Verdicts };
  });
}

/** The README's bash + openssl recipe on one delivery: `valid` or `invalid`, and what it left in its directory. */
export function verifyWithShellRecipe(body: string, header: string, secret: string): Promise<{ verdict: string; files: string[] }> {
  return inTempDir(async (dir) => {
    writeFileSync(path.join(dir, 'body.json'), body);
    const { stdout } = await run('bash', ['-c', readmeShellRecipe()], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', SVC_SIGNATURE: header, SECRET: secret },
    });
    return { verdict: stdout.trim(), files: readdirSync(dir) };
  });
}
