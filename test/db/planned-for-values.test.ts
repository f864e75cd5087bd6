import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { plannedForValues } from '../../src/db/queries/planned-for-values';
import { useTestDatabase } from '../support/test-database';

// src/db/queries/planned-for-values.ts: the filtered lists' query runs planned for its values and
// without parallel workers, and the connection goes back to the pool with its own settings.
describe('plannedForValues', () => {
  // One connection: what the query saw and what the pool's next user sees are the same backend's.
  // The session's own settings, whatever the server's defaults: what the query changes must not stay.
  const handle = useTestDatabase(1, async ({ db }) => {
    await db.execute(sql`set plan_cache_mode = auto`);
    await db.execute(sql`set max_parallel_workers_per_gather = 2`);
  });
  const settings = () =>
    handle.db.execute<{ mode: string; workers: string }>(
      sql`select current_setting('plan_cache_mode') as mode, current_setting('max_parallel_workers_per_gather') as workers`,
    );

  it('plans the query for its values, with no parallel workers, for that query only', async () => {
    const [before] = await settings();
    expect(before).toEqual({ mode: 'auto', workers: '2' });
    const [inside] = await plannedForValues(handle.db, (tx) =>
      tx.execute<{ mode: string; workers: string }>(
        sql`select current_setting('plan_cache_mode') as mode, current_setting('max_parallel_workers_per_gather') as workers`,
      ),
    );
    expect(inside).toEqual({ mode: 'force_custom_plan', workers: '0' });
    const [after] = await settings();
    expect(after).toEqual(before);
  });

  it("gives back the query's rows, and its error", async () => {
    const rows = await plannedForValues(handle.db, (tx) => tx.execute<{ n: number }>(sql`select 7 as n`));
    expect([...rows]).toEqual([{ n: 7 }]);
    await expect(plannedForValues(handle.db, (tx) => tx.execute(sql`select 1 / 0`))).rejects.toMatchObject({
      cause: { message: 'division by zero' },
    });
    const [after] = await settings();
    expect(after).toEqual({ mode: 'auto', workers: '2' });
  });
});
