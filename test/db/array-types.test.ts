import { describe, expect, it } from 'vitest';
import { eventually } from '../support/http';
import { useTestDatabase } from '../support/test-database';

// A pool reads the database's array types once, on its first connection; the connections it opens
// later send and read arrays with what that read found, without reading the catalog again.
describe('a pool’s array types', () => {
  const handle = useTestDatabase(3);

  it('are read by its first connection only, and serve the connections it opens later', async () => {
    await eventually(
      async () => handle.sql.options.fetch_types,
      (fetch) => fetch === false,
      5000,
      'the first connection read the types',
    );
    // Three queries at once: the pool opens its other two connections, which skip the read.
    const backends = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const [row] = await handle.sql<{ pid: number; ids: string[]; sum: number }[]>`
          select pg_backend_pid() as pid, array_agg(x)::text[] as ids, sum(x)::int as sum
          from unnest(${[n, n + 1, n + 2]}::int[]) as x, pg_sleep(0.2)`;
        return row!;
      }),
    );
    expect(new Set(backends.map((b) => b.pid)).size).toBe(3);
    // An int[] parameter was serialized and a text[] result parsed, on every connection.
    expect(backends.map((b) => [b.ids, b.sum])).toEqual([
      [['1', '2', '3'], 6],
      [['2', '3', '4'], 9],
      [['3', '4', '5'], 12],
    ]);
  });
});
