import { describe, expect, it } from 'vitest';
import { insertEventOnce, lastMerchantEventSeq, listMerchantEventsAfter } from '../../src/db/queries/events';
import { useTestDatabase } from '../support/test-database';
import { eventually } from '../support/http';

// The merchant's event numbers: one statement takes the next number and
// writes the event; the counter row's lock, held until commit, makes number order commit order, so
// a stream reader past N never misses a late commit.
describe('merchant event numbering', () => {
  const handle = useTestDatabase(6);

  const event = (merchantId: string, paymentId: string, type = 'payment.completed') => ({
    id: `evt_${merchantId}_${paymentId}_${type}`,
    paymentId,
    merchantId,
    type,
    body: JSON.stringify({ paymentId, type }),
  });

  it('numbers a merchant’s events 1, 2, 3…, each merchant on its own; a repeat gets the first row and takes no number', async () => {
    const first = await insertEventOnce(handle.db, event('MER_a', 'SV_1'));
    const second = await insertEventOnce(handle.db, event('MER_a', 'SV_2'));
    const other = await insertEventOnce(handle.db, event('MER_b', 'SV_3'));
    const repeat = await insertEventOnce(handle.db, { ...event('MER_a', 'SV_1'), id: 'evt_another_id' });
    const third = await insertEventOnce(handle.db, event('MER_a', 'SV_1', 'payment.settled'));
    expect([first.seq, second.seq, third.seq, other.seq]).toEqual([1, 2, 3, 1]);
    expect(repeat).toEqual(first);
    expect(first).toMatchObject({ id: 'evt_MER_a_SV_1_payment.completed', paymentId: 'SV_1', merchantId: 'MER_a', subject: '' });
    expect(first.createdAt).toBeInstanceOf(Date);
    expect(await lastMerchantEventSeq(handle.db, 'MER_a')).toBe(3);
  });

  it('holds the next number back until the open transaction that took the last one commits', async () => {
    let committed!: () => void;
    const commit = new Promise<void>((resolve) => (committed = resolve));
    let tookFirst!: () => void;
    const first = new Promise<void>((resolve) => (tookFirst = resolve));
    const slow = handle.db.transaction(async (tx) => {
      await insertEventOnce(tx, event('MER_d', 'SV_slow'));
      tookFirst();
      await commit;
    });
    await first;
    let fastDone = false;
    const fast = insertEventOnce(handle.db, event('MER_d', 'SV_fast')).then((row) => ((fastDone = true), row));
    // While the first is uncommitted, a reader sees nothing and the second writer waits for its number.
    await eventually(
      async () =>
        (
          await handle.sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
        )[0]!.n as number,
      (n) => n > 0,
      5000,
      'the second writer waits for the counter row',
    );
    expect(await listMerchantEventsAfter(handle.db, 'MER_d', 0, 10)).toEqual([]);
    expect(fastDone).toBe(false);
    committed();
    await slow;
    expect((await fast).seq).toBe(2);
    expect((await listMerchantEventsAfter(handle.db, 'MER_d', 0, 10)).map((e) => [e.seq, e.id])).toEqual([
      [1, 'evt_MER_d_SV_slow_payment.completed'],
      [2, 'evt_MER_d_SV_fast_payment.completed'],
    ]);
  });
});
