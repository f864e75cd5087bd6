import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { countingFlags, statementCountDir, statementCounter } from '../../bench/support/sql-count';
import { ROOT } from '../../bench/support/processes';
import { adminDatabaseUrl } from '../support/databases';

/** A typed frontend message: type byte, length (itself included), body. */
const typed = (type: string, body = Buffer.alloc(0)) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
/** An untyped one (the startup phase): length, code, body. */
const untyped = (code: number, body = Buffer.alloc(0)) => {
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(code, 4);
  return Buffer.concat([head, body]);
};

// The bench's SQL-statements figure counts what postgres.js writes (bench/support/sql-count.ts):
// a miscount would go unnoticed in a figure whose only check is that it is a positive number.
describe('bench SQL statement count', () => {
  const dirs: { remove(): void }[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.remove();
  });

  it('counts each Execute and simple Query once, however the stream is cut, and no byte of a body', () => {
    // Bodies full of 'E' and 'Q' bytes: only the message types count.
    const noise = Buffer.alloc(37, 'EQ');
    const stream = Buffer.concat([
      untyped(80877103), // SSLRequest (refused: the startup message follows, still untyped)
      untyped(196608, Buffer.from('user\0postgres\0\0')),
      typed('p', noise),
      ...Array.from({ length: 3 }, () => [typed('P', noise), typed('B', noise), typed('D', noise), typed('E', noise), typed('S')]).flat(),
      typed('Q', Buffer.from('begin\0')),
      typed('B', noise),
      typed('E', noise),
      typed('Q', Buffer.from('commit\0')),
      typed('X'),
    ]);
    for (const size of [1, 2, 3, 5, 7, 64, stream.length]) {
      let n = 0;
      const count = statementCounter(() => n++);
      for (let i = 0; i < stream.length; i += size) count(stream.subarray(i, i + size));
      expect(n, `cut every ${size} bytes`).toBe(6);
    }
  });

  it("counts a postgres.js client's statements in its own process, from the flags the bench starts it with", async () => {
    const dir = statementCountDir();
    dirs.push(dir);
    // Ten statements, then a transaction: BEGIN, two statements, COMMIT. No type lookup (fetch_types).
    const script = `
      const postgres = require('postgres');
      (async () => {
        const sql = postgres(process.env.URL, { max: 1, fetch_types: false, onnotice: () => {} });
        for (let i = 0; i < 10; i++) await sql\`select \${i}::int as x\`;
        await sql.begin(async (tx) => { await tx\`select 1\`; await tx\`select 2\`; });
        await sql.end();
      })();`;
    await promisify(execFile)(process.execPath, [require.resolve('tsx/cli'), ...countingFlags(), '-e', script], {
      cwd: ROOT,
      env: { ...process.env, URL: adminDatabaseUrl(), BENCH_SQL_COUNT_DIR: dir.dir },
    });
    expect(dir.read()).toBe(14);
  });
});
