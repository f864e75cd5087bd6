import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookEvents } from '../../src/activities/webhooks';
import { INTERRUPTED_ATTEMPT } from '../../src/db/queries/webhook-attempts';
import { ORPHANED_AFTER_SECONDS } from '../../src/payments/webhook-deliveries';
import { postWebhook } from '../../src/webhooks/post';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';

// A worker killed inside a transition's activity, after it wrote the event with its deliveries and
// began their first attempts: a replay runs the activity again and attempts them (attempt-log.test.ts),
// but a run that went on another path never does, and the delivery stays pending with an interrupted
// attempt. The death is put at one point through the attempt's POST (a dependency of the activities):
// a POST that never returns is a process that stopped there. The API's sweep must take such a
// delivery up once no run could still retry it, and not before.
const BASE_SECONDS = 0.5;
const ctx = useTestApp({ WEBHOOK_RETRY_BASE_SECONDS: String(BASE_SECONDS) }, { listen: true, worker: true });
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

/** Past it, a run that owned the interrupted first attempt would have retried it (the attempt's 30 s, the first interval). */
const RETRIED_BY_SECONDS = 30 + BASE_SECONDS + ORPHANED_AFTER_SECONDS;

async function openSession(): Promise<string> {
  const m = await createApprovedMerchant(ctx.app);
  const created = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', webhookUrl: `${receiver.url}/hooks` },
  });
  return created.json.checkoutSession.id as string;
}

/** The transition's event written by a worker that dies at `post`: the call never returns. */
function emitDyingAt(paymentId: string, post: typeof postWebhook) {
  const dying = createWebhookEvents({
    db: ctx.db.db,
    secretsKey: ctx.config.secretsKey,
    allowPrivateUrls: ctx.config.allowPrivateUrls,
    webhooks: ctx.config.webhooks,
    now: () => new Date(),
    post,
  });
  void dying.emitPaymentEventWithFirstAttempts(paymentId, 'processing');
}

const deliveryOf = async (paymentId: string) =>
  (await ctx.db.sql`select id, event_id, status, attempt_count from webhook_deliveries where payment_id = ${paymentId}`)[0];
const attemptsOf = (deliveryId: string) =>
  ctx.db.sql`select status_code, error from webhook_attempts where delivery_id = ${deliveryId} order by attempted_at, id`;
const backdateAttempts = (deliveryId: string, seconds: number) =>
  ctx.db.sql`update webhook_attempts set attempted_at = now() - make_interval(secs => ${seconds}) where delivery_id = ${deliveryId}`;
const postsOf = (deliveryId: string) => receiver.received.filter((d) => d.headers['svc-delivery-id'] === deliveryId);

/** Not taken while a run could still retry it; taken once none could, delivered once, and left alone after. */
async function expectSweptOnceNoRunCouldRetry(deliveryId: string, postsBefore: number) {
  expect(await ctx.app.payments.sweepOrphanedDeliveries()).toEqual({ started: 0 });
  await backdateAttempts(deliveryId, RETRIED_BY_SECONDS - 10);
  expect(await ctx.app.payments.sweepOrphanedDeliveries()).toEqual({ started: 0 });
  await backdateAttempts(deliveryId, RETRIED_BY_SECONDS + 10);
  expect(await ctx.app.payments.sweepOrphanedDeliveries()).toEqual({ started: 1 });
  await eventually(
    async () => (await deliveryOf((await ctx.db.sql`select payment_id from webhook_deliveries where id = ${deliveryId}`)[0]!.payment_id))!,
    (row) => row.status === 'succeeded',
    20_000,
    'the delivery succeeded',
  );
  expect(postsOf(deliveryId)).toHaveLength(postsBefore + 1);
  expect(await ctx.app.payments.sweepOrphanedDeliveries()).toEqual({ started: 0 });
  return attemptsOf(deliveryId);
}

describe('a delivery whose attempt a dying worker interrupted', () => {
  it('killed between writing the event and its first POST: sent once the sweep takes it up', async () => {
    const id = await openSession();
    let reached = false;
    // The process stops before the request leaves it.
    emitDyingAt(id, () => {
      reached = true;
      return new Promise(() => {});
    });
    const delivery = await eventually(
      () => deliveryOf(id),
      (row) => row?.attempt_count === 1 && reached,
      10_000,
      'the event written and its first attempt begun',
    );
    expect(postsOf(delivery!.id as string)).toEqual([]);
    const attempts = await expectSweptOnceNoRunCouldRetry(delivery!.id as string, 0);
    expect(attempts).toEqual([
      { status_code: null, error: INTERRUPTED_ATTEMPT },
      { status_code: 200, error: null },
    ]);
    expect(postsOf(delivery!.id as string)[0]!.headers['svc-event-id']).toBe(delivery!.event_id);
  });

  it('killed between starting an attempt and recording its outcome: the POST that reached the receiver is sent again', async () => {
    const id = await openSession();
    // The request goes out and is answered; the process dies before the answer is written.
    emitDyingAt(id, async (input) => {
      await postWebhook(input);
      return new Promise(() => {});
    });
    const delivery = await eventually(
      () => deliveryOf(id),
      (row) => !!row && postsOf(row.id as string).length === 1,
      10_000,
      'the first POST at the receiver',
    );
    expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
    const attempts = await expectSweptOnceNoRunCouldRetry(delivery!.id as string, 1);
    expect(attempts).toEqual([
      { status_code: null, error: INTERRUPTED_ATTEMPT },
      { status_code: 200, error: null },
    ]);
    // At least once: the same delivery and event, signed afresh.
    const [first, second] = postsOf(delivery!.id as string);
    expect(second!.rawBody).toBe(first!.rawBody);
  });
});
