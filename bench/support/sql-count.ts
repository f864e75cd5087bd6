import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';

// SQL statements a side sends to Postgres, counted in its own processes at the wire: every Execute
// ('E') of the extended protocol and every simple Query ('Q') a postgres.js connection writes, BEGIN
// and COMMIT included. Postgres has no per-client statement counter without pg_stat_statements,
// which needs a server restart to load (shared_preload_libraries), and a proxy in front of it would
// put another process's CPU and a round trip on every statement of the figures it does not measure.

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const EXECUTE = 0x45;
const QUERY = 0x51;

/**
 * Reads a client's byte stream to Postgres, however it is cut into writes, and calls `onStatement`
 * for each statement in it: untyped messages (length, code) until the startup message (an SSL or
 * GSS request comes before it), then typed ones (type, length).
 */
export function statementCounter(onStatement: () => void): (chunk: Uint8Array) => void {
  let startup = true;
  let skip = 0;
  const head = Buffer.alloc(8);
  let have = 0;
  return (chunk) => {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let i = 0;
    while (i < bytes.length) {
      if (skip > 0) {
        const n = Math.min(skip, bytes.length - i);
        skip -= n;
        i += n;
        continue;
      }
      const need = startup ? 8 : 5;
      const n = Math.min(need - have, bytes.length - i);
      bytes.copy(head, have, i, i + n);
      have += n;
      i += n;
      if (have < need) break;
      have = 0;
      if (startup) {
        const code = head.readInt32BE(4);
        skip = head.readInt32BE(0) - 8;
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false;
      } else {
        skip = head.readInt32BE(1) - 4;
        if (head[0] === EXECUTE || head[0] === QUERY) onStatement();
      }
    }
  };
}

/** A directory the processes of one side write their counts into, one file per process and thread. */
export function statementCountDir(): { dir: string; read(): number; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-sql-'));
  return {
    dir,
    read: () => readdirSync(dir).reduce((sum, f) => (f.endsWith('.tmp') ? sum : sum + Number(readFileSync(path.join(dir, f), 'utf8'))), 0),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** How often a counting process writes its count: the bench waits this long twice before it reads. */
export const COUNT_FLUSH_MS = 100;

/**
 * The Node flags that make a process count its statements into BENCH_SQL_COUNT_DIR: this module,
 * imported before the entry (after tsx's loader, which a --require would come before). It patches
 * net.Socket's write for postgres.js's sockets, which it knows by the `ssl` and `port` postgres.js
 * sets on them, and writes the count every COUNT_FLUSH_MS and at exit. Worker threads inherit the
 * flags but not tsx's loader (Temporal's workflow thread could not load a .ts file, and makes no
 * SQL): there, the import does nothing.
 */
export const countingFlags = (): string[] => [
  '--import',
  `data:text/javascript,import { isMainThread } from 'node:worker_threads'; if (isMainThread) await import(${JSON.stringify(pathToFileURL(__filename).href)});`,
];

/** A socket for postgres.js's `socket` option: connected, its writes counted into `count`. */
export function countingSocket(count: { statements: number }) {
  return async (options: { host: string[]; port: number[] }): Promise<net.Socket> => {
    const socket = net.connect(options.port[0]!, options.host[0]);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    countWrites(socket, () => count.statements++);
    return socket;
  };
}

type Write = (this: net.Socket, data: unknown, ...rest: unknown[]) => boolean;

/** `write` that first hands each chunk to the socket's counter, if it has one. */
function counted(write: Write, counterOf: (socket: net.Socket) => ((chunk: Uint8Array) => void) | null): Write {
  return function (data, ...rest) {
    if (data instanceof Uint8Array) counterOf(this)?.(data);
    return write.call(this, data, ...rest);
  };
}

function countWrites(socket: net.Socket, onStatement: () => void) {
  const counter = statementCounter(onStatement);
  Reflect.set(
    socket,
    'write',
    counted(Reflect.get(socket, 'write') as Write, () => counter),
  );
}

function preload(dir: string) {
  let statements = 0;
  let written = 0;
  const counters = new WeakMap<net.Socket, (chunk: Uint8Array) => void>();
  const counterOf = (socket: net.Socket) => {
    if (!('ssl' in socket && 'port' in socket)) return null;
    let counter = counters.get(socket);
    if (!counter) {
      counter = statementCounter(() => statements++);
      counters.set(socket, counter);
      // A reconnect starts a new stream on a new socket; this one's counter goes with it.
      socket.once('close', () => counters.delete(socket));
    }
    return counter;
  };
  Reflect.set(net.Socket.prototype, 'write', counted(Reflect.get(net.Socket.prototype, 'write') as Write, counterOf));
  const file = path.join(dir, `${process.pid}-${threadId}`);
  const flush = () => {
    if (statements === written) return;
    try {
      writeFileSync(`${file}.tmp`, String(statements));
      renameSync(`${file}.tmp`, file);
      written = statements;
    } catch {
      // The bench removed the directory as it ended: nobody reads the count any more.
    }
  };
  setInterval(flush, COUNT_FLUSH_MS).unref();
  process.on('exit', flush);
}

if (process.env.BENCH_SQL_COUNT_DIR) preload(process.env.BENCH_SQL_COUNT_DIR);
