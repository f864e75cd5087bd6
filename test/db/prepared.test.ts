import { count, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type DatabaseOrTransaction } from '../../src/db/client';
import { preparedFor } from '../../src/db/queries/prepared';
import { insertEventOnce } from '../../src/db/queries/events';
import { events } from '../../src/db/schema';
import { useTestDatabase } from '../support/test-database';

// src/db/queries/prepared.ts: a query built once runs on the handle it is given, a transaction's
// connection included (it relies on two of drizzle's internals; this fails if either moves).
describe('preparedFor', () => {
  const handle = useTestDatabase(3);

  let builds = 0;
  const eventsOf = async (db: DatabaseOrTransaction, merchantId: string) => {
    const query = preparedFor(db, 'test_count_merchant_events', () => {
      builds++;
      return db
        .select({ n: count() })
        .from(events)
        .where(eq(events.merchantId, sql.placeholder('merchantId')))
        .prepare('test_count_merchant_events');
    });
    const [row] = await query.execute({ merchantId });
    return row!.n;
  };
  const event = (merchantId: string) => ({ id: `evt_${merchantId}`, paymentId: 'SV_1', merchantId, type: 'payment.completed', body: '{}' });

  it("runs inside a transaction on the transaction's connection, and on the pool after it, built once", async () => {
    class RolledBack extends Error {}
    const seen = await handle.db
      .transaction(async (tx) => {
        await insertEventOnce(tx, event('MER_tx'));
        // Built here, inside the transaction: the insert above is visible to it, not yet to the pool.
        const inside = await eventsOf(tx, 'MER_tx');
        const outside = await eventsOf(handle.db, 'MER_tx');
        throw new RolledBack(JSON.stringify({ inside, outside }));
      })
      .catch((err: unknown) => {
        if (err instanceof RolledBack) return JSON.parse(err.message) as { inside: number; outside: number };
        throw err;
      });
    expect(seen).toEqual({ inside: 1, outside: 0 });
    // The transaction rolled back (its write was its own), and the query built in it still runs.
    expect(await eventsOf(handle.db, 'MER_tx')).toBe(0);
    await insertEventOnce(handle.db, event('MER_pool'));
    expect(await eventsOf(handle.db, 'MER_pool')).toBe(1);
    expect(builds).toBe(1);
  });
});
