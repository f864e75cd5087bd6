import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import { run } from '../../src/cli/ops';

// The ops CLI as operators run it (`npm run ops --` is `tsx src/cli/ops.ts`): a real process, its own
// environment, speaking HTTP to a real listening service.

export const ROOT = path.resolve(__dirname, '../..');
const TSX_CLI = require.resolve('tsx/cli');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export type Env = Record<string, string | undefined>;

// Asynchronous on purpose: a synchronous spawn would block the very event loop that serves the CLI.
export function spawnOps(args: string[], env: Env): Promise<Run> {
  const fullEnv = { PATH: process.env.PATH ?? '', ...env };
  const definedEnv = Object.fromEntries(Object.entries(fullEnv).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX_CLI, 'src/cli/ops.ts', ...args], {
      cwd: ROOT,
      env: definedEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The same program in this process (`run` of src/cli/ops.ts): its command line, its environment as
 * spawnOps builds a process's (PATH, then `env`), its output and exit status, without a tsx start
 * per command. What only a process adds (`npm run ops`, the exit code set on exit) is left to the
 * spawned runs.
 */
export async function runOpsHere(args: string[], env: Env): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  return { code, stdout, stderr };
}

export function expectOk(run: Run): Run {
  expect(run.stderr, run.stdout).toBe('');
  expect(run.code).toBe(0);
  return run;
}

export function expectUsageError(run: Run, message: RegExp): Run {
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(message);
  expect(run.code, run.stderr).toBe(2);
  return run;
}
