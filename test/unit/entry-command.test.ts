import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryCommandArgs, WORKER_NODE_FLAGS } from '../../tools/dev/entry-command';

const ROOT = path.resolve(__dirname, '../..');

describe('entry point commands', () => {
  it('give worker processes their Node flags, and other entry points none', () => {
    expect(WORKER_NODE_FLAGS.length).toBeGreaterThan(0);
    const worker = entryCommandArgs('worker.ts');
    expect(worker.slice(1)).toEqual([...WORKER_NODE_FLAGS, 'worker.ts']);
    expect(entryCommandArgs('server.ts').slice(1)).toEqual(['server.ts']);
    expect(entryCommandArgs('sandbox.ts').slice(1)).toEqual(['sandbox.ts']);
  });

  it('spell the same flags out in package.json’s worker script', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.worker).toBe(`tsx ${WORKER_NODE_FLAGS.join(' ')} worker.ts`);
  });

  it('reach the process tsx starts and its threads (the workflow thread is one)', () => {
    const out = execFileSync(process.execPath, entryCommandArgs(path.join(ROOT, 'test/fixtures/entry/worker.ts')), {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const seen = JSON.parse(out.trim().split('\n').at(-1)!) as { execArgv: string[]; threadArgv: string[] };
    for (const flag of WORKER_NODE_FLAGS) {
      expect(seen.execArgv).toContain(flag);
      expect(seen.threadArgv).toContain(flag);
    }
  });
});
