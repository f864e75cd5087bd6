import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { API_QUERY_DEADLINE_MS, createDb, type DbOptions } from '../../src/db/client';
import { adminDatabaseUrl } from '../support/databases';

// Drizzle's queries are named statements, parsed once per connection, so a repeated query
// costs Postgres no parse and the client one round trip (src/db/prepared-statements.ts).

/** The statements this connection has prepared (max: 1, so every query shares it). */
async function preparedOn(db: ReturnType<typeof createDb>['db']): Promise<string[]> {
  const rows = await db.execute<{ statement: string }>(sql`select statement from pg_prepared_statements`);
  return rows.map((r) => r.statement);
}

describe.each<[string, DbOptions]>([
  ['the worker', { max: 1 }],
  ['the API (with its query deadline)', { max: 1, queryDeadlineMs: API_QUERY_DEADLINE_MS }],
])('drizzle queries of %s', (_, options) => {
  it('are prepared once per connection and reused, in transactions too', async () => {
    const handle = createDb(adminDatabaseUrl(), options);
    try {
      const answers: number[] = [];
      for (const n of [1, 2, 3]) {
        const [row] = await handle.db.execute<{ next: number }>(sql`select ${n}::int + 1 as next`);
        answers.push(row!.next);
      }
      const inTransaction = await handle.db.transaction(async (tx) => {
        const [row] = await tx.execute<{ doubled: number }>(sql`select ${21}::int * 2 as doubled`);
        return row!.doubled;
      });
      expect(answers).toEqual([2, 3, 4]);
      expect(inTransaction).toBe(42);

      // A statement with its constants in its text (no parameters) is prepared too, so it is
      // planned once; a text of several statements still runs, as the simple protocol runs it.
      for (let i = 0; i < 2; i++) await handle.db.execute(sql`select 'polygon' as network`);
      const [several] = await handle.db.execute<{ two: number }>(sql.raw('select 1; select 2 as two'));

      const prepared = await preparedOn(handle.db);
      expect(prepared.filter((s) => s === 'select $1::int + 1 as next')).toHaveLength(1);
      expect(prepared).toContain('select $1::int * 2 as doubled');
      expect(prepared.filter((s) => s === "select 'polygon' as network")).toHaveLength(1);
      expect(several).toBeDefined();
    } finally {
      await handle.close();
    }
  });
});
