import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesFor, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';

// Every stored event is delivered or visibly failed. The game day found deliveries
// written as pending that nothing ever attempted (a worker killed after a transition wrote its event;
// the retried task took another path). Here the event and its delivery are written as that worker
// wrote them, with nothing started to post them, and the API's sweep picks them up.
const ctx = useTestApp({ WEBHOOK_RETRY_BASE_SECONDS: '0.5' }, { listen: true, worker: true });
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

describe('deliveries no attempt reached', () => {
  it('are started by the sweep once they are old enough, delivered once, and left alone while young', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const created = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 25, currency: 'USD', countryCode: 'US', webhookUrl: `${receiver.url}/hooks` },
    });
    const id = created.json.checkoutSession.id as string;
    const activities = activitiesFor(ctx);
    // Written, not delivered: what a killed worker leaves behind.
    const orphan = await activities.emitPaymentEvent(id, 'processing');
    const young = await activities.emitPaymentEvent(id, 'failed');
    await ctx.db.sql`update webhook_deliveries set created_at = now() - interval '10 minutes' where id = ${orphan.deliveryIds[0]!}`;

    expect(await ctx.app.payments.sweepOrphanedDeliveries()).toEqual({ started: 1 });
    await eventually(
      () => Promise.resolve(receiver.received.filter((d) => d.body.eventId === orphan.eventId).length),
      (n) => n === 1,
      20_000,
      'the orphan delivered',
    );
    const status = async (deliveryId: string) =>
      (await ctx.db.sql`select status, attempt_count from webhook_deliveries where id = ${deliveryId}`)[0];
    await eventually(
      () => status(orphan.deliveryIds[0]!),
      (row) => row?.status === 'succeeded',
      20_000,
      'the delivery succeeded',
    );
    // Attempted now: a later sweep leaves it alone, and the young one (its run may still post it) too.
    expect(await ctx.app.payments.sweepOrphanedDeliveries()).toEqual({ started: 0 });
    expect(await status(young.deliveryIds[0]!)).toEqual({ status: 'pending', attempt_count: 0 });
    expect(receiver.received.filter((d) => d.body.eventId === young.eventId)).toEqual([]);
  });
});
