import postgres from 'postgres';

// One holder of a named job across every process on the database: a session-level Postgres advisory
// lock on a connection of its own. Postgres releases it when that connection ends, so a holder that
// dies (process killed, host gone) frees it without anyone's help, and a stand-by's next try takes
// it. The holder pings its connection; a failed or slow ping means the lock may be gone, so the job
// is stopped at once and the connection closed (which frees the lock if the server still held it).
// Two holders can overlap only for less than one ping: acceptable for jobs whose work is
// idempotent, as the chain watchers' is.

export interface LeaseOptions {
  databaseUrl: string;
  /** The job's name; its lock key is a hash of it, per database. */
  name: string;
  /** How often a stand-by tries to take the lock (default 5 s). */
  retryMs?: number;
  /** How often the holder checks its connection, and how long a check may take (default 5 s). */
  heartbeatMs?: number;
  /** Stops the job and gives the lock up. */
  signal: AbortSignal;
  onChange?: (event: 'acquired' | 'lost' | 'released', detail?: string) => void;
}

/**
 * Runs `job` whenever this process holds the lease, until `signal` aborts. `job` gets a signal that
 * aborts when the lease is lost or given up, and must return soon after it does.
 */
export async function holdAdvisoryLease(options: LeaseOptions, job: (held: AbortSignal) => Promise<void>): Promise<void> {
  const retryMs = options.retryMs ?? 5000;
  const heartbeatMs = options.heartbeatMs ?? 5000;
  const { signal } = options;
  while (!signal.aborted) {
    // max 1, never idle-closed: the lock lives exactly as long as this one connection.
    const sql = postgres(options.databaseUrl, {
      max: 1,
      idle_timeout: 0,
      connect_timeout: 3,
      onnotice: () => {},
      // Its queries neither send nor read arrays: the array types' catalog read is saved.
      fetch_types: false,
      connection: { application_name: `svc-lease:${options.name}` },
    });
    try {
      let pid: number | null = null;
      while (!signal.aborted && (pid = await tryLock(sql, options.name)) === null) await sleep(retryMs, signal);
      if (signal.aborted || pid === null) break;
      options.onChange?.('acquired');
      const held = new AbortController();
      const stop = () => held.abort();
      signal.addEventListener('abort', stop, { once: true });
      const beat = heartbeat(sql, pid, heartbeatMs, held, (reason) => options.onChange?.('lost', reason));
      try {
        await job(held.signal);
      } finally {
        held.abort();
        signal.removeEventListener('abort', stop);
        await beat;
      }
      if (signal.aborted) {
        // Given up on purpose: unlock now rather than when the connection closes.
        await sql`select pg_advisory_unlock(hashtextextended(${options.name}, 0))`.catch(() => {});
        options.onChange?.('released');
      } else {
        // Lost: a stand-by, trying every retryMs on a connection that works, takes over first.
        await sql.end({ timeout: 0 }).catch(() => {});
        await sleep(2 * retryMs, signal);
      }
    } catch (err) {
      // No database now: stand by and try again.
      options.onChange?.('lost', err instanceof Error ? err.message : String(err));
      await sleep(retryMs, signal);
    } finally {
      await sql.end({ timeout: 0 }).catch(() => {});
    }
  }
}

/** The backend holding the lock now, or null when another session holds it. */
async function tryLock(sql: postgres.Sql, name: string): Promise<number | null> {
  const [row] = await sql<
    { locked: boolean; pid: number }[]
  >`select pg_try_advisory_lock(hashtextextended(${name}, 0)) as locked, pg_backend_pid() as pid`;
  return row!.locked ? row!.pid : null;
}

/**
 * Pings the lease's connection until `held` aborts; a failed or slow ping aborts it, and so does an
 * answer from another backend (the client reconnected by itself: the lock went with the old one).
 */
async function heartbeat(
  sql: postgres.Sql,
  pid: number,
  everyMs: number,
  held: AbortController,
  lost: (reason: string) => void,
): Promise<void> {
  while (!held.signal.aborted) {
    await sleep(everyMs, held.signal);
    if (held.signal.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      const [row] = await Promise.race([
        sql<{ pid: number }[]>`select pg_backend_pid() as pid`,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${everyMs} ms`)), everyMs);
        }),
      ]);
      if (row!.pid !== pid) throw new Error('the lease connection was replaced');
    } catch (err) {
      lost(err instanceof Error ? err.message : String(err));
      held.abort();
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Waits `ms`, or less once `signal` aborts (never rejects: a stopping loop just ends its wait). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
