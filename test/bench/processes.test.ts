import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { groupCpuMs } from '../../bench/support/processes';

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
});
