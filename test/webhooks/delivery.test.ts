import { afterAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities';
import { createWebhookActivities } from '../../src/activities/webhooks';
import { createSessionCanceller } from '../../src/temporal/session-cancel';
import { checkWebhookTarget } from '../../src/webhooks/target-policy';
import { verifyWebhook } from '../../src/webhooks/verify';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { localActivityTypes } from '../support/history-events';
import { paymentAtRest } from '../support/at-rest';
import { eventually } from '../support/http';
import { startReceiver, type ReceivedDelivery } from '../support/receiver';
import { depositAddressOf, payDirect } from '../support/proof';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// Deliveries to real local receivers, driven by signed provider callbacks (and, for completion, a
// transfer into the deposit address) through the workflows on the dev server. Retries are shortened
// (0.5 s base, 1 s cap) and the timeout is 1 s. The sandbox runs as the direct rail's price source.
const ctx = useTestApp(
  {
    WEBHOOK_RETRY_BASE_SECONDS: '0.5',
    WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '1',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RETRY_WINDOW_HOURS: '1',
  },
  { sandbox: true, worker: true },
);
const receivers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

async function merchantWithEndpoint(url: string) {
  const m = await createApprovedMerchant(ctx.app);
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
    headers: adminHeaders,
    payload: { url },
  });
  expect(res.statusCode).toBe(201);
  expect(res.json().secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
  return { ...m, endpointSecret: res.json().secret as string };
}

async function openSession(apiKey: string, body: Record<string, unknown> = {}) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US', orderId: 'wc-1001', ...body },
  });
  expect(res.statusCode).toBe(201);
  const id = res.json().checkoutSession.id as string;
  return {
    id,
    amount: '25.00',
    currency: 'USD',
    destinationAsset: 'USDC',
    network: 'polygon',
    walletAddress: await depositAddressOf(ctx, id),
  };
}

/** A provider fact as its signed callback; a success is only proven by the transfer into the deposit address. */
const pay = async (s: Awaited<ReturnType<typeof openSession>>, type: 'payment.processing' | 'payment.succeeded' | 'payment.failed') => {
  if (type === 'payment.succeeded') return payDirect(ctx, s.id);
  return postCallback(ctx.app, sandboxEvent(s, type), { secret: ctx.config.providers.sandbox.callbackSecret });
};

/**
 * One transition that ends the session, and so one event: the merchant's expire (a provider's decline
 * no longer ends a session).
 */
const endSession = async (apiKey: string, s: { id: string }) => {
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/checkout/sessions/${s.id}/expire`,
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(res.statusCode).toBe(200);
};

const deliveriesOf = async (paymentId: string) =>
  (await ctx.app.inject({ method: 'GET', url: `/admin/v1/webhook-deliveries?paymentId=${paymentId}`, headers: adminHeaders })).json()
    .deliveries as any[];

function expectVerified(d: ReceivedDelivery, secret: string) {
  expect(verifyWebhook(d.rawBody, d.headers['svc-signature'], secret)).toEqual({ ok: true });
}

describe('signed webhook deliveries', () => {
  it('sends one signed event per transition, with the spec’s headers and body', async () => {
    const r = await receiver();
    const m = await merchantWithEndpoint(`${r.url}/hooks`);
    const s = await openSession(m.apiKey);
    await pay(s, 'payment.processing');
    await pay(s, 'payment.succeeded');
    await eventually(
      async () => r.received.length,
      (n) => n >= 2,
      15_000,
      'two deliveries',
    );
    // The transitions' events, once each; payment.settled follows once the payout is confirmed, and
    // may already be here.
    const transitions = r.received.filter((d) => d.body.event !== 'payment.settled');
    const byType = Object.fromEntries(transitions.map((d) => [d.body.event, d]));
    expect(Object.keys(byType).sort()).toEqual(['payment.completed', 'payment.processing']);
    expect(transitions).toHaveLength(2);

    const done = byType['payment.completed']!;
    expectVerified(done, m.endpointSecret);
    expect(done.headers).toMatchObject({
      'user-agent': 'svc-webhooks/1.0',
      'content-type': 'application/json',
      'svc-event-type': 'payment.completed',
      'svc-event-id': done.body.eventId,
    });
    expect(done.headers['svc-delivery-id']).toMatch(/^dlv_[0-9A-Za-z]{24}$/);
    expect(done.headers['svc-signature']).toMatch(new RegExp(`^t=${done.headers['svc-timestamp']},v1=[0-9a-f]{64}$`));
    expect(done.body).toMatchObject({
      event: 'payment.completed',
      eventSource: 'provider_webhook',
      merchantId: m.id,
      sessionId: s.id,
      transactionId: s.id,
      externalSessionId: s.id,
      provider: 'sandbox',
      railType: 'fiat_to_crypto',
      status: 'completed',
      amount: '25.00',
      currency: 'USD',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: WALLET,
      orderId: 'wc-1001',
      wooCommerce: { orderStatus: 'processing' },
      // 1 % of the 25.000000 credited on chain.
      merchantSettlementAmount: '24.750000',
      platformCommissionAmount: '0.250000',
    });
    expect(done.body.eventId).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(typeof done.body.externalTransactionId).toBe('string');
    expect(new Date(done.body.createdAt).toISOString()).toBe(done.body.createdAt);
    expect(byType['payment.processing']!.body.wooCommerce).toEqual({ orderStatus: 'on-hold' });

    // Each transition's event is stored once (payment.settled may be stored too by now).
    const stored = await ctx.db.sql`select type from events where payment_id = ${s.id} and type <> 'payment.settled'`;
    expect(stored.map((e) => e.type).sort()).toEqual(['payment.completed', 'payment.processing']);
  });

  it('delivers to the session’s webhookUrl signed with the merchant’s secret, once per distinct URL', async () => {
    const r = await receiver();
    const m = await createApprovedMerchant(ctx.app);
    const created = await ctx.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: adminHeaders, payload: { name: 'x' } });
    expect(created.json().webhookSecret).toMatch(/^whsec_/);
    const [row] = await ctx.db.sql`select webhook_secret_encrypted from merchants where id = ${m.id}`;
    expect(row!.webhook_secret_encrypted).toMatch(/^v1\./);

    const endpoint = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${r.url}/same` },
    });
    const s = await openSession(m.apiKey, { webhookUrl: `${r.url}/session` });
    const s2 = await openSession(m.apiKey, { webhookUrl: `${r.url}/same` });
    await endSession(m.apiKey, s);
    await endSession(m.apiKey, s2);
    await eventually(
      async () => r.received.length,
      (n) => n >= 3,
      15_000,
      'three deliveries',
    );
    await paymentAtRest(ctx, s.id);
    await paymentAtRest(ctx, s2.id);
    expect(r.received).toHaveLength(3);
    const toSession = r.received.find((d) => d.path === '/session')!;
    expect(toSession.body.sessionId).toBe(s.id);
    const sameUrl = r.received.filter((d) => d.path === '/same');
    expect(sameUrl.map((d) => d.body.sessionId).sort()).toEqual([s.id, s2.id].sort());
    for (const d of sameUrl) expectVerified(d, endpoint.json().secret);
    expect(verifyWebhook(toSession.rawBody, toSession.headers['svc-signature'], endpoint.json().secret).ok).toBe(false);
  });

  it('retries a failing receiver with the same delivery and event ids, a fresh signature each time, and logs every attempt', async () => {
    const r = await receiver((_d, i) => ({ status: i < 2 ? 500 : 200 }));
    const m = await merchantWithEndpoint(`${r.url}/flaky`);
    const s = await openSession(m.apiKey);
    await endSession(m.apiKey, s);
    await eventually(
      async () => r.received.length,
      (n) => n >= 3,
      20_000,
      'three attempts',
    );
    const ids = new Set(r.received.map((d) => `${d.headers['svc-delivery-id']}|${d.headers['svc-event-id']}`));
    expect(ids.size).toBe(1);
    expect(new Set(r.received.map((d) => d.rawBody)).size).toBe(1);
    for (const d of r.received) expectVerified(d, m.endpointSecret);
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(400);

    const deliveries = await eventually(
      () => deliveriesOf(s.id),
      (ds) => ds[0]?.status === 'succeeded',
      10_000,
      'delivery succeeded',
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ eventType: 'payment.expired', url: `${r.url}/flaky`, status: 'succeeded' });
    expect(deliveries[0].attempts.map((a: any) => a.statusCode)).toEqual([500, 500, 200]);
    expect(deliveries[0].attempts[0].error).toBe('HTTP 500');
    for (const a of deliveries[0].attempts) expect(a.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('delivers from the payment’s own run, which ends only once its deliveries are done', async () => {
    const r = await receiver((_d, i) => ({ status: i < 2 ? 500 : 200 }));
    const m = await merchantWithEndpoint(`${r.url}/in-run`);
    const s = await openSession(m.apiKey);
    await endSession(m.apiKey, s);
    const handle = ctx.temporal.workflow.getHandle(s.id);
    // Expired is terminal, but the first attempt failed: the run is still open, retrying.
    await eventually(
      async () => r.received.length,
      (n) => n >= 1,
      10_000,
      'the first attempt',
    );
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await handle.result()).status).toBe('expired');
    expect(r.received).toHaveLength(3);
    const [delivery] = await deliveriesOf(s.id);
    expect(delivery).toMatchObject({ status: 'succeeded' });
    // No workflow of its own: the attempts were one activity of the session's run, named by the delivery.
    await expect(ctx.temporal.workflow.getHandle(delivery.id).describe()).rejects.toThrow(/not found/i);
    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
    );
    // (An ended session's run also closes its provider payment, an activity of its own.)
    expect(scheduled.map((a) => [a.activityType?.name, a.activityId]).filter(([name]) => name !== 'closeSessionProviderPayment')).toEqual([
      ['deliverWebhook', delivery.id],
    ]);
    // Its first attempt was made by the local activity that wrote the event, the retries
    // that activity, after the schedule's first interval (a timer).
    expect(localActivityTypes(history.events).filter((a) => a === 'deliverWebhook')).toEqual([]);
    expect(localActivityTypes(history.events)).toContain('moveSession');
    const timers = (history.events ?? []).flatMap((e) =>
      e.timerStartedEventAttributes?.startToFireTimeout ? [e.timerStartedEventAttributes.startToFireTimeout] : [],
    );
    expect(timers.filter((t) => Number(t.seconds ?? 0) === 0 && t.nanos === 500_000_000)).toHaveLength(1);
  });

  it('stops a delivery at its next attempt once its endpoint is deleted: the secret is gone, nothing more is sent', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const m = await merchantWithEndpoint(`${r.url}/deleted`);
    const s = await openSession(m.apiKey);
    await endSession(m.apiKey, s);
    await eventually(
      async () => r.received.length,
      (n) => n >= 1,
      10_000,
      'the first attempt',
    );
    const [endpoint] = (
      await ctx.app.inject({ method: 'GET', url: `/admin/v1/merchants/${m.id}/webhook-endpoints`, headers: adminHeaders })
    ).json().endpoints;
    expect(
      (
        await ctx.app.inject({
          method: 'DELETE',
          url: `/admin/v1/merchants/${m.id}/webhook-endpoints/${endpoint.id}`,
          headers: adminHeaders,
        })
      ).statusCode,
    ).toBe(200);
    const [delivery] = await eventually(
      () => deliveriesOf(s.id),
      (ds) => ds[0]?.status === 'failed',
      20_000,
      'the delivery given up',
    );
    const sent = r.received.length;
    // The attempt after the delete read no endpoint: refused before signing, logged as no attempt.
    expect(delivery.attempts).toHaveLength(sent);
    await paymentAtRest(ctx, s.id);
    expect(r.received).toHaveLength(sent);
  });

  it('treats a reply slower than the timeout, and a redirect, as failures', async () => {
    const r = await receiver((_d, i) =>
      i === 0 ? { status: 200, delayMs: 1500 } : i === 1 ? { status: 302, location: 'http://127.0.0.1:1/' } : { status: 204 },
    );
    const m = await merchantWithEndpoint(`${r.url}/slow`);
    const s = await openSession(m.apiKey);
    await endSession(m.apiKey, s);
    const deliveries = await eventually(
      () => deliveriesOf(s.id),
      (ds) => ds[0]?.status === 'succeeded',
      20_000,
      'delivery succeeded',
    );
    const attempts = deliveries[0].attempts;
    expect(attempts).toHaveLength(3);
    expect(attempts[0]).toMatchObject({ statusCode: null });
    expect(attempts[0].error).toMatch(/timed out/);
    expect(attempts[1]).toMatchObject({ statusCode: 302, error: 'HTTP 302' });
    expect(attempts[2]).toMatchObject({ statusCode: 204, error: null });
  });

  it('resends a delivery on an operator’s request: same ids and body, a new signature', async () => {
    const r = await receiver();
    const m = await merchantWithEndpoint(`${r.url}/resend`);
    const s = await openSession(m.apiKey);
    await endSession(m.apiKey, s);
    const [delivery] = await eventually(
      () => deliveriesOf(s.id),
      (ds) => ds[0]?.status === 'succeeded',
      15_000,
      'first delivery',
    );
    // A signature's timestamp is in whole seconds: the resend is signed anew once the second has turned.
    const signedAt = Number(r.received[0]!.headers['svc-timestamp']);
    await eventually(
      async () => Math.floor(Date.now() / 1000),
      (second) => second > signedAt,
      2_000,
      'the next second',
    );
    const res = await ctx.app.inject({ method: 'POST', url: `/admin/v1/webhook-deliveries/${delivery.id}/resend`, headers: adminHeaders });
    expect(res.statusCode).toBe(202);
    await eventually(
      async () => r.received.length,
      (n) => n >= 2,
      15_000,
      'resent delivery',
    );
    const [first, second] = r.received;
    expect(second!.headers['svc-delivery-id']).toBe(first!.headers['svc-delivery-id']);
    expect(second!.headers['svc-event-id']).toBe(first!.headers['svc-event-id']);
    expect(second!.rawBody).toBe(first!.rawBody);
    expect(second!.headers['svc-signature']).not.toBe(first!.headers['svc-signature']);
    expectVerified(second!, m.endpointSecret);
    expect(
      (await ctx.app.inject({ method: 'POST', url: '/admin/v1/webhook-deliveries/dlv_unknown/resend', headers: adminHeaders })).statusCode,
    ).toBe(404);
  });

  it('writes the event of a transition once, however often the activity runs', async () => {
    const r = await receiver();
    const m = await merchantWithEndpoint(`${r.url}/once`);
    const s = await openSession(m.apiKey);
    await endSession(m.apiKey, s);
    // Wait for the first delivery to have landed, not only for its row: counting the receiver's
    // POSTs before it arrives would take the original delivery for a second one.
    await eventually(
      () => deliveriesOf(s.id),
      (ds) => ds.length === 1 && ds[0]?.status === 'succeeded',
      15_000,
    );
    expect(r.received).toHaveLength(1);
    const activities = createWebhookActivities({
      db: ctx.db.db,
      secretsKey: ctx.config.secretsKey,
      allowPrivateUrls: true,
      webhooks: ctx.config.webhooks,
      now: () => new Date(),
    });
    const again = await activities.emitPaymentEvent(s.id, 'expired');
    const once = await activities.emitPaymentEvent(s.id, 'expired');
    expect(once).toEqual(again);
    expect((await deliveriesOf(s.id)).map((d) => d.id)).toEqual(again.deliveryIds);
    const [counted] = await ctx.db.sql`select count(*)::int as n from events where payment_id = ${s.id} and type = 'payment.expired'`;
    expect(counted!.n).toBe(1);
    const [attempts] = await ctx.db.sql`select count(*)::int as n from webhook_attempts where delivery_id = ${again.deliveryIds[0]!}`;
    expect(attempts!.n).toBe(1);

    // The transition's write and its event in one activity (session-transitions.ts): run again, as a
    // retry would, it writes neither twice and hands back the same event and deliveries; its first
    // attempt finds the delivery succeeded and posts nothing again.
    const all = createActivities({
      ...ctx.config,
      db: ctx.db.db,
      providers: ctx.providers,
      publicBaseUrl: ctx.config.http.publicBaseUrl,
      chains: ctx.config.chains,
      cancelSession: createSessionCanceller(ctx.temporal),
      now: () => new Date(),
    });
    expect(await all.moveSession(s.id, { kind: 'status', to: 'expired', from: ['pending', 'processing'] })).toEqual({
      ...again,
      toRetry: [],
    });
    expect(r.received).toHaveLength(1);
    const [rows] = await ctx.db
      .sql`select (select count(*)::int from transactions where payment_id = ${s.id}) as transactions, (select count(*)::int from events where payment_id = ${s.id}) as events, (select status from checkout_sessions where id = ${s.id}) as status`;
    expect(rows).toEqual({ transactions: 0, events: 1, status: 'expired' });
  });
});

describe('the URL policy (ALLOW_PRIVATE_URLS=false)', () => {
  it.each([
    'http://api.shop.example/hooks',
    'https://127.0.0.1/hooks',
    'https://localhost/hooks',
    'https://10.0.0.8/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.1.1/',
    'https://[::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://[fd00:ec2::254]/',
    'https://user:pw@api.shop.example/',
    'https://intranet/hooks',
    'ftp://files.shop.example/',
  ])('refuses %s at registration', async (url) => {
    expect(await checkWebhookTarget(url, false)).not.toBeNull();
    // The same URLs are accepted for development when the flag is on, except a non-http scheme.
    if (!url.startsWith('ftp:') && !url.includes('user:pw')) expect(await checkWebhookTarget(url, true)).toBeNull();
  });

  it('refuses a private target again at delivery time, without retrying', async () => {
    const r = await receiver();
    const m = await merchantWithEndpoint(`${r.url}/private`);
    const s = await openSession(m.apiKey);
    // Deliveries exist for the private URL (registered while private URLs were allowed)...
    await endSession(m.apiKey, s);
    const [delivery] = await eventually(
      () => deliveriesOf(s.id),
      (ds) => ds[0]?.status === 'succeeded',
      15_000,
    );
    const before = r.received.length;
    // ...and a worker with the policy on refuses to send to it.
    const strict = createWebhookActivities({
      db: ctx.db.db,
      secretsKey: ctx.config.secretsKey,
      allowPrivateUrls: false,
      webhooks: ctx.config.webhooks,
      now: () => new Date(),
    });
    await ctx.db.sql`update webhook_deliveries set status = 'pending' where id = ${delivery.id}`;
    await expect(strict.deliverWebhook(delivery.id)).rejects.toMatchObject({ type: 'DeliveryRefused', nonRetryable: true });
    expect(r.received.length).toBe(before);
    const attempts = (await deliveriesOf(s.id))[0].attempts;
    expect(attempts.at(-1).error).toMatch(/^refused/);
  });
});
