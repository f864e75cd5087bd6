import { spawn } from 'node:child_process';
import net from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { entryCommandArgs } from './entry-command';

// Helpers for `npm start` (scripts/start.ts), which runs the entry points as child processes.

export interface ChildHandle {
  name: string;
  /** Resolves once the process has exited, with its exit code or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals>;
  /** SIGTERM, then SIGKILL to its whole process group when it is still running after `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

/** Runs `entry` through tsx's CLI (no npx needed), its output prefixed with `[name]`. */
export function spawnEntryPoint(name: string, entry: string, options: { cwd: string; env: Record<string, string> }): ChildHandle {
  // A process group of its own: a terminal's Ctrl-C then reaches only the supervisor, which stops
  // the children itself and in order, and a hard kill also takes the node process tsx runs.
  const child = spawn(process.execPath, entryCommandArgs(entry), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  prefixLines(child.stdout, process.stdout, `[${name}] `);
  prefixLines(child.stderr, process.stderr, `[${name}] `);
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 1));
    child.once('error', (err) => {
      process.stderr.write(`[${name}] could not start: ${err.message}\n`);
      resolve(1);
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    exited,
    async stop(graceMs) {
      if (!running()) return;
      // tsx relays SIGTERM to the entry point, whose own handler shuts it down gracefully.
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        process.stderr.write(`[${name}] still running after ${graceMs} ms: killing it\n`);
        killGroup(child.pid);
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function prefixLines(from: Readable, to: Writable, prefix: string): void {
  createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => to.write(`${prefix}${line}\n`));
}

/** Polls `url` until it answers 200; false when `timeoutMs` passes first. */
export async function waitForHttpOk(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
      await res.body?.cancel();
      if (res.status === 200) return true;
    } catch {
      // Not listening yet, or its dependencies are still coming up.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** Whether something already listens on host:port (it could then not be ours). */
export function portInUse(port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(true) : reject(err)));
    probe.listen(port, host, () => probe.close(() => resolve(false)));
  });
}

/** A URL this machine can reach a server on that listens on `host` (wildcards mean loopback). */
export function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${net.isIPv6(reachable) ? `[${reachable}]` : reachable}:${port}`;
}
