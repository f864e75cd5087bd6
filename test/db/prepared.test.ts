import { count, eq, sql } from 'drizzle-orm';
import type { Placeholder } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type DatabaseOrTransaction } from '../../src/db/client';
import { preparedFor } from '../../src/db/queries/prepared';
import { insertEventOnce } from '../../src/db/queries/events';
import { insertMerchant } from '../../src/db/queries/merchants';
import { checkoutSessions, events, merchants, paymentLinks } from '../../src/db/schema';
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

  it("maps rows as drizzle's own mapping does, and leaves to it what a left join may leave out", async () => {
    const db = handle.db;
    await insertMerchant(db, { id: 'MER_rows', name: 'Rows', commissionBps: 100, securityCodeHash: 'h', webhookSecretEncrypted: 'e' });
    await handle.sql`insert into checkout_sessions (id, merchant_id, status, amount_minor, currency, country_code, destination_asset, network,
        wallet_address, commission_bps, provider, rail_type, expires_at, metadata, customer_email)
      values ('SV_rows', 'MER_rows', 'pending', 2500, 'USD', 'US', 'USDC', 'polygon', '0x52908400098527886E0F7030069857D2E4169EE7', 100,
        'sandbox', 'fiat_to_crypto', now() + interval '1 day', '{"order":{"n":1}}', null)`;
    // Each shape, run prepared (preparedFor's mapping) and as a plain drizzle query (drizzle's).
    const byId = (id: Placeholder | string) => eq(checkoutSessions.id, id);
    const shapes = {
      nested: (id: Placeholder | string) =>
        db
          .select({
            session: checkoutSessions,
            flagged: sql<boolean>`true`,
            amount: sql`${checkoutSessions.amountMinor} * 2`.mapWith(Number),
          })
          .from(checkoutSessions)
          .where(byId(id)),
      joined: (id: Placeholder | string) =>
        db
          .select({ session: checkoutSessions, merchant: merchants, name: merchants.name })
          .from(checkoutSessions)
          .innerJoin(merchants, eq(merchants.id, checkoutSessions.merchantId))
          .where(byId(id)),
      leftJoined: (id: Placeholder | string) =>
        db
          .select({ session: checkoutSessions, link: paymentLinks })
          .from(checkoutSessions)
          .leftJoin(paymentLinks, eq(paymentLinks.id, checkoutSessions.paymentLinkId))
          .where(byId(id)),
      leftJoinedFlat: (id: Placeholder | string) =>
        db
          .select({ session: checkoutSessions, linkPaidBy: paymentLinks.paidSessionId })
          .from(checkoutSessions)
          .leftJoin(paymentLinks, eq(paymentLinks.id, checkoutSessions.paymentLinkId))
          .where(byId(id)),
    };
    const mapped: Record<string, boolean> = {};
    for (const [shape, build] of Object.entries(shapes)) {
      const query = preparedFor(db, `test_rows_${shape}`, () => build(sql.placeholder('id')).prepare(`test_rows_${shape}`));
      mapped[shape] = (query as unknown as { customResultMapper?: unknown }).customResultMapper !== undefined;
      const ours = await query.execute({ id: 'SV_rows' });
      expect(ours, shape).toEqual(await build('SV_rows'));
      expect(ours, shape).toHaveLength(1);
    }
    // The session's own row: dates, bigints and JSON decoded as drizzle decodes them.
    const [row] = await preparedFor(db, 'test_rows_nested', () => shapes.nested(sql.placeholder('id')).prepare('test_rows_nested')).execute(
      {
        id: 'SV_rows',
      },
    );
    expect(row!.session.amountMinor).toBe(2500n);
    expect(row!.session.createdAt).toBeInstanceOf(Date);
    expect(row!.session.metadata).toEqual({ order: { n: 1 } });
    expect(row!.amount).toBe(5000);
    // The link a left join found nothing for is null in both: drizzle's mapping does that.
    expect((await shapes.leftJoined('SV_rows'))[0]!.link).toBeNull();
    expect(mapped).toEqual({ nested: true, joined: true, leftJoined: false, leftJoinedFlat: true });
  });

  it('maps what an insert returns as drizzle does', async () => {
    const db = handle.db;
    const insert = (id: Placeholder | string) =>
      db
        .insert(merchants)
        .values({ id, name: 'Returned', commissionBps: 150, securityCodeHash: 'h', webhookSecretEncrypted: 'e' })
        .returning();
    const query = preparedFor(db, 'test_rows_insert', () => insert(sql.placeholder('id')).prepare('test_rows_insert'));
    const [ours] = await query.execute({ id: 'MER_returned_1' });
    const [theirs] = await insert('MER_returned_2');
    // Two rows written a moment apart: their ids and default times differ, their shapes and types must not.
    const comparable = (row: typeof ours) =>
      Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, k === 'id' ? 'id' : v instanceof Date ? 'a Date' : v]));
    expect(comparable(ours)).toEqual(comparable(theirs));
    expect(comparable(ours).createdAt).toBe('a Date');
    expect((query as unknown as { customResultMapper?: unknown }).customResultMapper).toBeDefined();
  });
});
