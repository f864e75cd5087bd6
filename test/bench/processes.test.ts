import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { groupCpuMs, listeningPid, pidsCpuMs, ROOT, treeCpuMs } from '../../bench/support/processes';

/** The commands of a process's live children (Linux /proc). */
function childCommands(pid: number): string[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return children.flatMap((child) => {
    try {
      return [readFileSync(`/proc/${child}/comm`, 'utf8').trim()];
    } catch {
      return [];
    }
  });
}

describe('bench CPU accounting', () => {
  const groups: number[] = [];
  afterEach(() => {
    for (const pgid of groups.splice(0)) process.kill(-pgid, 'SIGKILL');
  });

  it('reads a single-threaded process’s CPU finer than the 10 ms tick: 2 ms burned reads neither 0 nor 10', () => {
    // A Postgres backend's share of a quick bench round is a few milliseconds; in ticks it could read 0.
    // Burned on this process's main thread (this test's code runs there), by its own CPU clock.
    const before = pidsCpuMs([process.pid]).get(process.pid)!;
    const start = process.cpuUsage();
    while (process.cpuUsage(start).user < 2000);
    const burned = pidsCpuMs([process.pid]).get(process.pid)! - before;
    expect(burned).toBeGreaterThanOrEqual(1.5);
    // In ticks, every reading is a multiple of 10 ms (0 or 10 here); in nanoseconds, next to never.
    expect(burned % 10).not.toBe(0);
  });

  it('keeps the CPU of a process that exited during the measurement (its parent reaped it)', async () => {
    // A shell (its own process group) runs a node process that burns 400 ms of CPU and exits, then
    // sleeps: the shape of a Postgres backend whose connection closed under the postmaster. Burned by
    // its own CPU clock, not the wall's: on a loaded machine a wall-clock loop gets less than it asks.
    const shell = spawn('sh', ['-c', `"${process.execPath}" -e "while (process.cpuUsage().user < 400000);"; exec sleep 30`], {
      detached: true,
      stdio: 'ignore',
    });
    groups.push(shell.pid!);
    const before = groupCpuMs(shell.pid!);
    const deadline = Date.now() + 20_000;
    while (!childCommands(shell.pid!).includes('sleep') && readFileSync(`/proc/${shell.pid}/comm`, 'utf8').trim() !== 'sleep') {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(50);
    }
    // The burner is gone: only the shell (now `sleep`) is left in the group, with ~0 CPU of its own.
    expect(groupCpuMs(shell.pid!) - before).toBeGreaterThanOrEqual(300);
  });

  it("counts a process tree's CPU, descendants in other process groups included, and no process outside it", async () => {
    // A shell whose child burns 300 ms in a process group of its own (setsid), then sleeps: the tree
    // holds it, its group does not.
    const shell = spawn(
      'sh',
      ['-c', `setsid "${process.execPath}" -e "while (process.cpuUsage().user < 300000); setTimeout(() => {}, 30000)" & wait`],
      {
        detached: true,
        stdio: 'ignore',
      },
    );
    groups.push(shell.pid!);
    const before = treeCpuMs([shell.pid!]);
    const deadline = Date.now() + 20_000;
    while (treeCpuMs([shell.pid!]) - before < 250) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(50);
    }
    expect(groupCpuMs(shell.pid!) - before).toBeLessThan(100);
    // A pid nobody has: nothing.
    expect(treeCpuMs([2 ** 22 + 1])).toBe(0);
    for (const child of readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, 'utf8').trim().split(/\s+/))
      process.kill(Number(child), 'SIGKILL');
  });

  it('leaves nothing running behind a bench process that dies of an unhandled rejection (killStrays at exit)', async () => {
    // The bench's shape: a service in a process group of its own whose leader exits and leaves its
    // child to init (tsx's node process), and a plain child (a Temporal server, an anvil). The process
    // then dies before any of its stops ran.
    const script = `
      const { spawn } = require('node:child_process');
      const { killStrays, trackGroup } = require('./bench/support/processes');
      process.on('exit', killStrays);
      const leader = spawn('sh', ['-c', 'sleep 30 & echo $!'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
      trackGroup(leader.pid);
      leader.stdout.once('data', (d) => {
        const plain = spawn('sleep', ['31'], { stdio: 'ignore' });
        console.log(JSON.stringify([Number(String(d).trim()), plain.pid]));
        setTimeout(() => Promise.reject(new Error('a figure failed outside its try')), 200);
      });`;
    const run = spawn(process.execPath, [require.resolve('tsx/cli'), '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    run.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));
    expect(code).not.toBe(0);
    const [orphan, plain] = JSON.parse(out.trim().split('\n').at(-1)!) as [number, number];
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 10_000;
    while (alive(orphan) || alive(plain)) {
      expect(Date.now(), 'the orphaned group member or the plain child is still running').toBeLessThan(deadline);
      await sleep(50);
    }
  });

  it('finds the process listening on a port, and none on a port nobody listens on', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      expect(listeningPid(port)).toBe(process.pid);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(listeningPid(port)).toBeNull();
  });
});
