import { afterAll, describe, expect, it } from 'vitest';
import { createWebhookActivities } from '../../src/activities/webhooks';
import { webhookTestEventSchema } from '../../src/api/webhook-schemas';
import { verifyWebhook } from '../../src/webhooks/verify';
import { approve, secureOwner, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { useMailSink } from '../support/mail';
import { startReceiver } from '../support/receiver';
import { seedPayment } from '../support/seed-payment';

// Webhook endpoints with the event types they receive, enable,
// disable, delete, a signed test event, the delivery log with its filters and every attempt, resend;
// restricted keys with scopes the public API enforces, and their revocation. Short retries (0.5 s).
const mailbox = useMailSink();
// The mailbox fills its env in its beforeAll: the settings go into the same object.
Object.assign(mailbox.env, { WEBHOOK_RETRY_BASE_SECONDS: '0.5', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '1', WEBHOOK_TIMEOUT_MS: '1000' });
const ctx = useTestApp(mailbox.env, { worker: true });
const receivers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

interface LoggedDelivery {
  id: string;
  eventId: string;
  status: string;
  attempts: { at: string; statusCode: number | null; durationMs: number }[];
}

/** The worker's webhook activities, to emit a payment's events as its run would. */
const webhookActivities = () =>
  createWebhookActivities({
    db: ctx.db.db,
    secretsKey: ctx.config.secretsKey,
    allowPrivateUrls: true,
    webhooks: ctx.config.webhooks,
    now: () => new Date(),
  });

async function approvedOwner(email: string) {
  const owner = await signedUpOwner(ctx.app, mailbox, email);
  const liveKey = await approve(ctx.app, owner.merchantId);
  // A new endpoint asks for a step-up, and an owner's asks for a second factor.
  await secureOwner(owner.client);
  return { ...owner, liveKey };
}

describe('dashboard webhooks and restricted keys', () => {
  it('sends each endpoint only the event types it chose', async () => {
    const { client, merchantId } = await approvedOwner('types@example.com');
    const chosen = await client.call('POST', '/webhook-endpoints', {
      url: 'http://127.0.0.1:9/completed-only',
      eventTypes: ['payment.completed'],
    });
    expect(chosen.statusCode).toBe(201);
    expect(chosen.json().endpoint).toMatchObject({ eventTypes: ['payment.completed'], enabled: true });
    const every = await client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/every' });
    expect(every.json().endpoint.eventTypes).toBeNull();
    const bad = await client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/x', eventTypes: ['payment.paid'] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ ok: false, error: 'ValidationError' });
    expect((await client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/x', eventTypes: [] })).statusCode).toBe(422);

    const activities = webhookActivities();
    const paymentId = await seedPayment(ctx.db.db, merchantId, 'completed');
    const urlsOf = async (deliveryIds: string[]) =>
      (await ctx.db.sql`select url from webhook_deliveries where id in ${ctx.db.sql(deliveryIds)} order by url`).map((r) => r.url);
    expect(await urlsOf((await activities.emitPaymentEvent(paymentId, 'processing')).deliveryIds)).toEqual(['http://127.0.0.1:9/every']);
    expect(await urlsOf((await activities.emitPaymentEvent(paymentId, 'completed')).deliveryIds)).toEqual([
      'http://127.0.0.1:9/completed-only',
      'http://127.0.0.1:9/every',
    ]);
    const log = await client.call('GET', '/webhook-deliveries?eventType=payment.processing');
    expect(log.json().deliveries).toEqual([
      expect.objectContaining({ eventType: 'payment.processing', url: 'http://127.0.0.1:9/every', status: 'pending', attempts: [] }),
    ]);
  });

  it('enables, disables and deletes an endpoint; a disabled one is skipped', async () => {
    const { client, merchantId } = await approvedOwner('toggle@example.com');
    const { endpoint } = (await client.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/toggle' })).json();
    const disabled = await client.call('POST', `/webhook-endpoints/${endpoint.id}/disable`);
    expect(disabled.json()).toEqual({ ok: true, endpoint: { ...endpoint, enabled: false } });
    const activities = webhookActivities();
    const paymentId = await seedPayment(ctx.db.db, merchantId, 'pending');
    expect((await activities.emitPaymentEvent(paymentId, 'pending')).deliveryIds).toEqual([]);
    expect((await client.call('POST', `/webhook-endpoints/${endpoint.id}/enable`)).json().endpoint.enabled).toBe(true);
    expect((await client.call('POST', `/webhook-endpoints/${endpoint.id}/enable`)).json().endpoint.enabled, 'idempotent').toBe(true);
    const deleted = await client.call('DELETE', `/webhook-endpoints/${endpoint.id}`);
    expect(deleted.statusCode).toBe(200);
    expect((await client.call('GET', '/webhook-endpoints')).json().endpoints).toEqual([]);
    for (const [method, url] of [
      ['DELETE', `/webhook-endpoints/${endpoint.id}`],
      ['POST', '/webhook-endpoints/nonsense/disable'],
      ['POST', `/webhook-endpoints/${endpoint.id}/test`],
    ] as const) {
      const res = await client.call(method, url);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toMatchObject({ ok: false, error: 'NotFound' });
    }
  });

  it('sends a signed test event, logs every attempt with its status code and timing, filters the log, and resends', async () => {
    const { client } = await approvedOwner('test-event@example.com');
    const r = await startReceiver((_d, i) => ({ status: i === 0 ? 500 : 200 }));
    receivers.push(r);
    const added = (await client.call('POST', '/webhook-endpoints', { url: `${r.url}/hooks`, eventTypes: ['payment.completed'] })).json();
    const sent = await client.call('POST', `/webhook-endpoints/${added.endpoint.id}/test`);
    expect(sent.statusCode).toBe(202);
    const { deliveryId, eventId } = sent.json();

    // The first attempt fails (500), the retry succeeds: both are in the log.
    const succeeded = await eventually(
      async () => (await client.call('GET', '/webhook-deliveries?status=succeeded')).json().deliveries,
      (ds: LoggedDelivery[]) => ds.length === 1,
    );
    const logged = succeeded[0]!;
    expect(logged).toMatchObject({ id: deliveryId, eventId, eventType: 'webhook.test', url: `${r.url}/hooks`, status: 'succeeded' });
    expect(logged.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
    for (const a of logged.attempts) {
      expect(a.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(a.at)).not.toBeNaN();
    }
    expect((await client.call('GET', '/webhook-deliveries?status=failed')).json().deliveries).toEqual([]);
    expect((await client.call('GET', '/webhook-deliveries?eventType=payment.completed')).json().deliveries).toEqual([]);
    const badFilter = await client.call('GET', '/webhook-deliveries?status=lost');
    expect(badFilter.statusCode).toBe(422);

    expect(r.received).toHaveLength(2);
    const d = r.received[1]!;
    expect(verifyWebhook(d.rawBody, d.headers['svc-signature'], added.secret)).toEqual({ ok: true });
    expect(d.headers['svc-event-type']).toBe('webhook.test');
    expect(d.body).toMatchObject({ eventId, event: 'webhook.test', endpointId: added.endpoint.id });
    // The OpenAPI document (and the SDK's WebhookTestEvent made from it) describes this body, field for field.
    expect(webhookTestEventSchema.strict().parse(d.body)).toEqual(d.body);

    const resent = await client.call('POST', `/webhook-deliveries/${deliveryId}/resend`);
    expect(resent.statusCode).toBe(202);
    await eventually(
      async () => r.received.length,
      (n) => n === 3,
    );
    expect(r.received[2]!.body.eventId, 'the same event again').toBe(eventId);
    expect(r.received[2]!.headers['svc-delivery-id']).toBe(deliveryId);
    const afterResend = await eventually(
      async () => (await client.call('GET', '/webhook-deliveries')).json().deliveries[0],
      (x: LoggedDelivery) => x.status === 'succeeded' && x.attempts.length === 3,
    );
    expect(afterResend.id).toBe(deliveryId);
    for (const id of ['dlv_000000000000000000000000', 'nonsense']) {
      expect((await client.call('POST', `/webhook-deliveries/${id}/resend`)).statusCode, id).toBe(404);
    }
  });

  it('issues a restricted key once, with scopes the public API enforces, and revokes it at once', async () => {
    const pending = await signedUpOwner(ctx.app, mailbox, 'pending-keys@example.com');
    const refused = await pending.client.call('POST', '/api-keys', { scopes: ['transactions:read'] });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ ok: false, error: 'Conflict' });

    const { client } = await approvedOwner('scoped@example.com');
    expect((await client.call('POST', '/api-keys', { scopes: [] })).statusCode).toBe(422);
    expect((await client.call('POST', '/api-keys', { scopes: ['everything'] })).statusCode).toBe(422);
    const issued = await client.call('POST', '/api-keys', { scopes: ['transactions:read', 'transactions:read'] });
    expect(issued.statusCode).toBe(201);
    const { apiKey, key } = issued.json();
    expect(apiKey).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
    expect(key).toMatchObject({ kind: 'restricted', scopes: ['transactions:read'], last4: apiKey.slice(-4), revokedAt: null });
    const list = await client.call('GET', '/api-keys');
    expect(list.body).not.toContain(apiKey);
    expect(list.json().keys.map((k: { id: string }) => k.id)).toContain(key.id);

    const auth = { authorization: `Bearer ${apiKey}` };
    const read = await ctx.app.inject({ method: 'GET', url: '/api/v1/transactions/SV_none', headers: auth });
    expect(read.statusCode, 'its scope works').toBe(404);
    const create = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: auth,
      payload: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    expect(create.statusCode, 'another scope is refused').toBe(403);
    expect(create.json()).toMatchObject({ ok: false, error: 'InsufficientScope' });

    const revoked = await client.call('POST', `/api-keys/${key.id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().key.revokedAt).not.toBeNull();
    const after = await ctx.app.inject({ method: 'GET', url: '/api/v1/transactions/SV_none', headers: auth });
    expect(after.statusCode, 'revoked at once, past the key cache').toBe(401);
    expect((await client.call('POST', '/api-keys/key_0000000000000000/revoke')).statusCode).toBe(404);
  });
});
