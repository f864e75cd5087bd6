import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { entryCommandArgs, runsThroughTsx } from '../../tools/dev/entry-command';

export const ROOT = path.resolve(__dirname, '../..');

export interface Child {
  name: string;
  child: ChildProcess;
  output: () => string;
  /** SIGTERM to its process group, SIGKILL after `graceMs` (default 5 s) if it has not exited. */
  stop: (graceMs?: number) => Promise<void>;
}

export { freePort } from '../../tools/dev/free-port';

/**
 * Runs a TypeScript entry point (server.ts, worker.ts, a bench endpoint) as its own process, as it
 * runs in production: the load generator and the measured process must not share an event loop.
 * Resolves once `ready` answers true or the output matches it.
 */
export async function startEntry(
  name: string,
  entry: string,
  env: Record<string, string>,
  /** A pattern of its output, or a check given its process group. */
  ready: RegExp | ((pgid: number) => Promise<boolean>),
  timeoutMs = 90_000,
  /** More Node flags for the entry's process (tsx hands them to the node process it starts). */
  nodeFlags: string[] = [],
): Promise<Child> {
  const args = entryCommandArgs(entry);
  args.splice(args.length - 1, 0, ...nodeFlags);
  // Its own process group: tsx runs the entry in a child process, and a stop must reach both.
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  trackGroup(child.pid!);
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`${name} exited before it was ready:\n${output}`);
    const ok = ready instanceof RegExp ? ready.test(output) : await ready(child.pid!).catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) {
      process.kill(-child.pid!, 'SIGKILL');
      throw new Error(`${name} not ready after ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    name,
    child,
    output: () => output,
    // A process writing a CPU profile (--cpu-prof) writes it only as it exits: a worker's graceful
    // stop (its pollers and activities) may outlast 5 s, and a kill loses the profile.
    // Done once every process of the group has exited, not only tsx's launcher: the node process it
    // started may still be writing its CPU profile after the launcher has gone (a profile read then
    // was missing in two quick runs of five).
    stop: async (graceMs = nodeFlags.includes('--cpu-prof') ? 60_000 : 5000) => {
      const pgid = child.pid!;
      if (!groupAlive(pgid)) return;
      const deadline = Date.now() + graceMs;
      stopSignal(pgid, runsThroughTsx(entry));
      while (groupAlive(pgid)) {
        if (Date.now() > deadline) {
          signalGroup(pgid, 'SIGKILL');
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** Whether any process of group `pgid` is still running (a zombie waiting for its parent is not). */
function groupAlive(pgid: number): boolean {
  return processCpu().some((p) => p.pgid === pgid && p.state !== 'Z');
}

/**
 * SIGTERM to what a group runs. Through tsx the group is its launcher (the leader) and the node
 * process it started, which gets the signal, and the launcher exits with it. Signalled itself, tsx
 * relays the signal and, unless the child reports it within 30 ms, sends it again and then SIGKILLs
 * the child (tsx's relaySignals): on a loaded machine that cut a graceful stop short, and lost a CPU
 * profile the child writes as it exits. A compiled entry's group gets the signal whole.
 */
function stopSignal(pgid: number, throughTsx: boolean): void {
  const launched = throughTsx ? processCpu().filter((p) => p.pgid === pgid && p.ppid === pgid && p.state !== 'Z') : [];
  // Compiled, or a launcher whose child has gone already: the group.
  if (launched.length === 0) return signalGroup(pgid, 'SIGTERM');
  for (const p of launched) {
    try {
      process.kill(p.pid, 'SIGTERM');
    } catch {
      // Gone meanwhile.
    }
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone meanwhile.
  }
}

/** Process groups this process started (startEntry): killStrays ends whatever is left of them. */
const startedGroups = new Set<number>();

export function trackGroup(pgid: number): void {
  startedGroups.add(pgid);
}

/**
 * Kills (SIGKILL) every process this one started that is still running: its descendants, and the
 * members of every group it started, whose leader may have exited and left them to init. For the
 * bench's exit: a run that dies before its stops (an uncaught error, an unhandled rejection) must not
 * leave servers, workers, a Temporal server and an anvil behind, holding Postgres connections and a
 * share of the cores for every later run and test (one such stack made a topology round fail with
 * "too many clients"). After a clean run its stops have ended everything, and this finds nothing.
 */
export function killStrays(): void {
  const all = processCpu();
  const children = new Map<number, number[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const doomed = new Set<number>();
  const stack = [...(children.get(process.pid) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (doomed.has(pid)) continue;
    doomed.add(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  for (const p of all) if (startedGroups.has(p.pgid) && p.pid !== process.pid) doomed.add(p.pid);
  for (const pid of doomed) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Ready when HTTP at `url` answers from a process of the group started. The port came from
 * freePort, free a moment before the process bound it: another process (a test's server, an anvil)
 * may have taken it first, and would answer in its place while ours failed to bind.
 */
export const answers = (url: string) => async (pgid: number) => {
  await fetch(url, { signal: AbortSignal.timeout(1000) });
  const pid = listeningPid(Number(new URL(url).port));
  return pid !== null && processCpu().some((p) => p.pid === pid && p.pgid === pgid);
};

/**
 * CPU time (user + system, ms) used so far by every process of a process group (our children run
 * in their own group: tsx and the node process it starts). Linux /proc; what a server burns per
 * request holds up on a loaded machine where its req/s does not.
 */
export function groupCpuMs(pgid: number): number {
  let ms = 0;
  for (const p of processCpu()) if (p.pgid === pgid) ms += p.cpuMs;
  return ms;
}

/**
 * CPU time (ms) used so far by the processes `roots` and every descendant of theirs (by parent pid,
 * reaped children included through cutime/cstime): a server that runs its work in child processes
 * (the dev server's CLI, tsx's node) is counted whole, and no other process on the machine is.
 */
export function treeCpuMs(roots: readonly number[]): number {
  const all = processCpu();
  const children = new Map<number, number[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const inTree = new Set<number>();
  const stack = [...roots];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (inTree.has(pid)) continue;
    inTree.add(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  let ms = 0;
  for (const p of all) if (inTree.has(p.pid)) ms += p.cpuMs;
  return ms;
}

/**
 * CPU time (ms) used so far by each of `pids` that is alive, for single-threaded processes (Postgres
 * backends): /proc/<pid>/schedstat's time on a CPU, in nanoseconds, where stat counts 10 ms ticks. A
 * backend's share of a quick round's few payments is a few ticks, and read in ticks a round could
 * show 0 (a CI run did). stat's figure stands in where schedstat is missing (a kernel without it).
 */
export function pidsCpuMs(pids: readonly number[]): Map<number, number> {
  const wanted = new Set(pids);
  const out = new Map<number, number>();
  for (const p of processCpu()) {
    if (!wanted.has(p.pid)) continue;
    out.set(p.pid, scheduledMs(p.pid) ?? p.cpuMs);
  }
  return out;
}

/** The main thread's time on a CPU (ms), from /proc/<pid>/schedstat; null where it cannot be read. */
function scheduledMs(pid: number): number | null {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

/**
 * The pid of the process listening on TCP `port` of this host (/proc/net/tcp's socket inode, then the
 * process holding that socket), or null: how the bench finds a server it did not spawn itself (the
 * Temporal dev server, started by the SDK) without counting every process of the same name.
 */
export function listeningPid(port: number): number | null {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table: string;
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of table.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN.
      if (f.length > 9 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return null;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${entry}/fd/${fd}`);
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return Number(entry);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/** CPU time (ms) the whole machine spent busy so far: every core, everything but idle and iowait (/proc/stat). */
export function machineBusyMs(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = ticks;
  return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_MS;
}

const TICKS_PER_MS = 100 / 1000; // USER_HZ is 100 on Linux

/**
 * Every live process's command, process group and CPU time so far: its own user + system time and
 * that of its children it has reaped (cutime, cstime). Without the reaped children a total could
 * shrink: a Postgres backend whose connection closed during a round took its CPU with it (and a
 * figure came out 0 when another test file's connections closed at the same time); the postmaster
 * reaps every backend, so with them the totals only grow.
 */
function processCpu(): { pid: number; ppid: number; command: string; state: string; pgid: number; cpuMs: number }[] {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    found.push({
      pid: Number(entry),
      ppid: Number(fields[1]),
      command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      state: fields[0]!,
      pgid: Number(fields[2]),
      cpuMs: (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_MS,
    });
  }
  return found;
}

/**
 * Resident memory (bytes) of the largest process of a process group: the measured node process,
 * not the tsx launcher in front of it. Linux /proc (VmRSS).
 */
export function groupPeakProcessRss(pgid: number): number {
  let largest = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let status: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      status = readFileSync(`/proc/${entry}/status`, 'utf8');
    } catch {
      continue;
    }
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
    const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    largest = Math.max(largest, kib * 1024);
  }
  return largest;
}

/** Samples `read` every `everyMs` until stopped; stop() answers the highest value seen. */
export function sampleMax(read: () => number, everyMs = 500): { stop: () => number } {
  let max = read();
  const timer = setInterval(() => (max = Math.max(max, read())), everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(max, read());
    },
  };
}
