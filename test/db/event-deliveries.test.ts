import { describe, expect, it } from 'vitest';
import { insertEventOnce } from '../../src/db/queries/events';
import { insertEventWithDeliveries } from '../../src/db/queries/webhooks';
import { useTestDatabase } from '../support/test-database';

// A payment event and its deliveries in one statement (insertEventWithDeliveries). Written
// once: a repeat (a retried activity) writes nothing and answers null, for the two-statement path
// (insertEventOnce, insertDeliveriesOnce) to find what the first call wrote.
describe('insertEventWithDeliveries', () => {
  const handle = useTestDatabase(2);
  const event = (id: string, type = 'payment.completed') => ({
    id,
    paymentId: 'SV_together',
    merchantId: 'MER_together',
    type,
    body: `{"id":"${id}"}`,
  });
  const delivery = (id: string, eventId: string, url: string) => ({
    id,
    eventId,
    paymentId: 'SV_together',
    url,
    secretSource: 'endpoint' as const,
    secretRef: `we_${id}`,
  });
  const counts = async () =>
    (
      await handle.sql`select
        (select count(*)::int from events where payment_id = 'SV_together') as events,
        (select count(*)::int from webhook_deliveries where payment_id = 'SV_together') as deliveries,
        (select count(*)::int from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.payment_id = 'SV_together') as attempts,
        (select seq::int from merchant_event_seqs where merchant_id = 'MER_together') as seq`
    )[0];

  it('writes the event with its seq, its deliveries, and the first attempts asked for; a repeat writes nothing', async () => {
    const first = await insertEventWithDeliveries(
      handle.db,
      event('evt_one'),
      [delivery('wd_a', 'evt_one', 'https://a.example/hooks'), delivery('wd_b', 'evt_one', 'https://b.example/hooks')],
      new Set(['wd_b']),
    );
    expect(first?.event).toMatchObject({ id: 'evt_one', seq: 1, type: 'payment.completed', subject: '', body: '{"id":"evt_one"}' });
    expect(first?.deliveries.map((d) => [d.id, d.eventId, d.attemptCount])).toEqual(
      expect.arrayContaining([
        ['wd_a', 'evt_one', 0],
        ['wd_b', 'evt_one', 1],
      ]),
    );
    expect([...first!.attempts.keys()]).toEqual(['wd_b']);
    expect(await counts()).toEqual({ events: 1, deliveries: 2, attempts: 1, seq: 1 });

    // The same event again (new ids, as a retried activity makes them): nothing written, no number taken.
    const again = await insertEventWithDeliveries(
      handle.db,
      event('evt_two'),
      [delivery('wd_c', 'evt_two', 'https://a.example/hooks')],
      new Set(['wd_c']),
    );
    expect(again).toBeNull();
    expect(await counts()).toEqual({ events: 1, deliveries: 2, attempts: 1, seq: 1 });
    expect((await insertEventOnce(handle.db, event('evt_two'))).id).toBe('evt_one');

    // Another event of the payment, with no deliveries: the next seq.
    const next = await insertEventWithDeliveries(handle.db, event('evt_three', 'payment.settled'), [], new Set());
    expect(next).toMatchObject({ event: { id: 'evt_three', seq: 2 }, deliveries: [] });
    expect(await counts()).toEqual({ events: 2, deliveries: 2, attempts: 1, seq: 2 });
  });
});
