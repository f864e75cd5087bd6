import type postgres from 'postgres';
import { listeningPid, pidsCpuMs, treeCpuMs } from './processes';
import type { Stack } from './stack';

/** CPU (ms) the stack under test has used so far, by part. */
export interface StackCpu {
  temporal: number;
  /** Per backend pid: the deltas are taken per backend (see postgresDelta). */
  postgres: Map<number, number>;
  chain: number;
  /** Our services (API, sandbox, workers) and the bench process (load and receiver). */
  services: number;
}

/**
 * What the stack under test burns, and nothing else on the machine (other agents' tests run their
 * own Temporal servers, Postgres backends and anvils at the same time):
 * - Temporal: the process listening on the stack's Temporal port (the dev server the SDK spawned, or
 *   the production server) and its descendants;
 * - Postgres: the backends serving the run's own databases (pg_stat_activity's pids for them: our
 *   API's, workers' and the bench's pools, and the production Temporal server's), each counted from
 *   when it was first seen; a backend that closes within a round takes its CPU with it, so the figure
 *   is a floor (the pools keep their connections, so little is lost);
 * - the chain: the anvil listening on the stack's RPC port;
 * - services: the process trees of `services()` (their pids) and this process.
 */
export function stackCpuMeter(stack: Stack, sql: postgres.Sql, services: () => number[]) {
  const portOf = (address: string) => Number(new URL(address.includes('://') ? address : `tcp://${address}`).port);
  const temporalPid = listeningPid(portOf(stack.temporalAddress));
  const chainPid = listeningPid(portOf(stack.rpcUrl));
  const read = async (): Promise<StackCpu> => {
    const rows = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = any(${stack.databases})`;
    const own = process.cpuUsage();
    return {
      temporal: temporalPid === null ? Number.NaN : treeCpuMs([temporalPid]),
      postgres: pidsCpuMs(rows.map((r) => r.pid)),
      chain: chainPid === null ? Number.NaN : treeCpuMs([chainPid]),
      services: treeCpuMs(services()) + (own.user + own.system) / 1000,
    };
  };
  const postgresNow = async () =>
    pidsCpuMs((await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = any(${stack.databases})`).map((r) => r.pid));
  /**
   * Samples the run's backends every `everyMs` until `stop()`, which answers each backend's last
   * reading: a backend that closed within the round (a pool's idle timeout) keeps the CPU it had at
   * its last sample instead of taking it away (a short round could otherwise read 0).
   */
  const watchPostgres = (everyMs = 250) => {
    const seen = new Map<number, number>();
    const sample = async () => {
      for (const [pid, ms] of await postgresNow()) seen.set(pid, Math.max(ms, seen.get(pid) ?? 0));
    };
    let sampling = sample();
    const timer = setInterval(() => {
      sampling = sampling.then(sample, sample);
    }, everyMs);
    return {
      async stop(): Promise<Map<number, number>> {
        clearInterval(timer);
        await sampling.catch(() => undefined);
        await sample();
        return seen;
      },
    };
  };
  return { read, watchPostgres, temporalPid, chainPid };
}

/** Postgres CPU between two readings: every backend seen at the end, from its first reading (0 if it is new). */
export function postgresDelta(before: StackCpu['postgres'], after: StackCpu['postgres']): number {
  let ms = 0;
  for (const [pid, cpu] of after) ms += cpu - (before.get(pid) ?? 0);
  return ms;
}

/** The stack's whole CPU between two readings. */
export function stackDelta(before: StackCpu, after: StackCpu): number {
  return (
    after.temporal -
    before.temporal +
    postgresDelta(before.postgres, after.postgres) +
    after.chain -
    before.chain +
    after.services -
    before.services
  );
}
