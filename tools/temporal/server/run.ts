import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { SEARCH_ATTRIBUTE_KEYS } from '../../../src/workflows/search-attributes';

const run = promisify(execFile);

export interface RunningServer {
  address: string;
  process: ChildProcess;
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<number | string>;
  stop(): Promise<void>;
}

/** Starts `temporal-server` on a config written by writeServerConfig; its output goes to `logFile`. */
export function spawnServer(options: { server: string; dir: string; logFile: string }): RunningServer {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(options.server, ['--root', options.dir, '--config', 'config', '--env', 'svc', '--allow-no-auth', 'start'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Two sources, one file: neither may end it (the other's last lines would be written after its
  // end, an uncaught error); it ends once both are closed.
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  child.once('close', () => log.end());
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 1)));
  return {
    address: '',
    process: child,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // The server drains its shards on SIGTERM; a stuck one is killed.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retries `attempt` until it succeeds or `timeoutMs` passes (the server comes up in parts). */
async function retry<T>(what: string, timeoutMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`);
      await sleep(500);
    }
  }
}

/** Waits until the frontend reports SERVING through the CLI's cluster health. */
export async function waitForServing(cli: string, address: string, timeoutMs = 60_000): Promise<void> {
  await retry(`Temporal at ${address} did not become healthy`, timeoutMs, async () => {
    const { stdout } = await run(cli, ['operator', 'cluster', 'health', '--address', address]);
    if (!/SERVING/.test(stdout)) throw new Error(stdout.trim());
  });
}

/**
 * Registers the namespace (when missing) and our Keyword search attributes (when missing) with the
 * installed `temporal` CLI. A namespace just created is unknown to the frontend until its cache
 * refreshes (up to ~10 s), so the attributes are retried until they are accepted.
 */
export async function registerNamespace(options: {
  cli: string;
  address: string;
  namespace: string;
  retentionDays?: number;
}): Promise<void> {
  const { cli, address, namespace } = options;
  const base = ['--address', address];
  const described = await run(cli, ['operator', 'namespace', 'describe', ...base, '--namespace', namespace]).then(
    () => true,
    () => false,
  );
  if (!described) {
    await run(cli, [
      'operator',
      'namespace',
      'create',
      ...base,
      '--namespace',
      namespace,
      '--retention',
      `${(options.retentionDays ?? 7) * 24}h`,
    ]);
  }
  const existing = async () => {
    const { stdout } = await run(cli, ['operator', 'search-attribute', 'list', ...base, '--namespace', namespace, '--output', 'json']);
    return stdout;
  };
  for (const key of SEARCH_ATTRIBUTE_KEYS) {
    await retry(`registering search attribute ${key.name}`, 60_000, async () => {
      if (new RegExp(`"${key.name}"`).test(await existing())) return;
      await run(cli, [
        'operator',
        'search-attribute',
        'create',
        ...base,
        '--namespace',
        namespace,
        '--name',
        key.name,
        '--type',
        'Keyword',
      ]);
    });
  }
}

export const serverLogFile = (dir: string) => path.join(dir, 'server.log');
