import { afterAll, describe, expect, it } from 'vitest';
import { nextAttemptAt } from '../../src/payments/webhook-deliveries';
import { INTERRUPTED_ATTEMPT } from '../../src/db/queries/webhook-attempts';
import { MerchantIdKey } from '../../src/workflows/search-attributes';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { startReceiver } from '../support/receiver';
import { depositAddressOf } from '../support/proof';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// An operator's resend of a delivery that is still backing off is attempted at once
// (beside its schedule, which then sends nothing more); only while an attempt is under way does it
// answer 409 with when the next attempt is due. Retries: 4 s base, doubling, at most 8 s apart.
const ctx = useTestApp(
  { WEBHOOK_RETRY_BASE_SECONDS: '4', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '8', WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_RETRY_WINDOW_HOURS: '1' },
  { sandbox: true, worker: true },
);
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const resend = (id: string) => ctx.app.inject({ method: 'POST', url: `/admin/v1/webhook-deliveries/${id}/resend`, headers: adminHeaders });
const deliveriesOf = async (paymentId: string) =>
  (await ctx.app.inject({ method: 'GET', url: `/admin/v1/webhook-deliveries?paymentId=${paymentId}`, headers: adminHeaders })).json()
    .deliveries as { id: string; status: string; attempts: { statusCode: number | null }[] }[];

describe('deliveries resend during backoff', () => {
  it('attempts at once while the delivery backs off, answers 409 with the next attempt time while one is under way, and starts a fresh schedule once it ended', async () => {
    let mode: 'fail' | 'slow' | 'ok' = 'fail';
    const r = await startReceiver(() =>
      mode === 'fail' ? { status: 500 } : mode === 'slow' ? { status: 500, delayMs: 2000 } : { status: 200 },
    );
    closers.push(r.close);
    const m = await createApprovedMerchant(ctx.app);
    const added = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${r.url}/hooks` },
    });
    expect(added.statusCode).toBe(201);
    const opened = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    const id = opened.json().checkoutSession.id as string;
    const session = {
      id,
      amount: '25.00',
      currency: 'USD',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: await depositAddressOf(ctx, id),
    };
    // A transition with an event (a decline no longer ends the session: the customer may retry).
    await postCallback(ctx.app, sandboxEvent(session, 'payment.processing'), { secret: ctx.config.providers.sandbox.callbackSecret });

    // The first attempt (the run's local one) got its 500 and was logged: the delivery backs off 4 s.
    const [delivery] = await eventually(
      () => deliveriesOf(id),
      // Its outcome recorded, not only begun: an attempt under way would make the resend a 409.
      (ds) => ds.length === 1 && ds[0]!.attempts.length === 1 && ds[0]!.attempts[0]!.statusCode === 500,
      15_000,
      'the first attempt',
    );
    expect(delivery!.status).toBe('pending');

    // A resend during the backoff: an attempt now, well before the schedule's (4 s after the first).
    mode = 'slow';
    const now = await resend(delivery!.id);
    expect(now.statusCode).toBe(202);
    expect(now.json()).toEqual({ ok: true, deliveryId: delivery!.id, status: 'pending', mode: 'attempt_now' });
    await eventually(
      async () => r.received.length,
      (n) => n === 2,
      3_000,
      'the attempt now',
    );
    expect(r.received[1]!.at - r.received[0]!.at).toBeLessThan(3000);
    expect(r.received[1]!.headers['svc-delivery-id']).toBe(delivery!.id);

    // It is under way (the receiver takes 2 s): a second resend is refused with the next attempt's time.
    await eventually(
      async () => (await deliveriesOf(id))[0]!.attempts.length,
      (n) => n === 2,
      2_000,
    );
    const busy = await resend(delivery!.id);
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ ok: false, error: 'Conflict' });
    const due = /next attempt is due at (\S+) at the latest/.exec(busy.json().message);
    expect(due, busy.json().message).not.toBeNull();
    // Should the attempt under way fail, it ends within the 3 s timeout, and the next comes 8 s after (the 2nd interval, capped).
    const dueAt = new Date(due![1]!).getTime();
    expect(dueAt - r.received[1]!.at).toBeGreaterThan(10_000);
    expect(dueAt - r.received[1]!.at).toBeLessThan(12_500);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(busy.headers['retry-after'])).toBeLessThanOrEqual(3);

    // The schedule's own next attempt succeeds; after it the delivery is done and nothing more is sent.
    mode = 'ok';
    await eventually(
      () => deliveriesOf(id),
      (ds) => ds[0]!.status === 'succeeded',
      20_000,
      'the delivery succeeding',
    );
    const sent = await resend(delivery!.id);
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toEqual({ ok: true, deliveryId: delivery!.id, status: 'pending', mode: 'new_schedule' });
    const before = r.received.length;
    await eventually(
      async () => r.received.length,
      (n) => n > before,
      15_000,
      'the resent delivery',
    );
    expect(r.received.at(-1)!.headers['svc-delivery-id']).toBe(delivery!.id);

    // Both runs the resends started (the attempt now, the fresh schedule) carry the merchant's
    // MerchantId: an operator finds them by it in the Temporal UI, as the merchant's payments.
    const runs = await eventually(
      async () => {
        const found: { workflowId: string; merchantId: unknown }[] = [];
        for await (const w of ctx.temporal.workflow.list({ query: `WorkflowType = 'webhookDelivery' AND MerchantId = '${m.id}'` }))
          found.push({
            workflowId: w.workflowId,
            merchantId: (await ctx.temporal.workflow.getHandle(w.workflowId).describe()).typedSearchAttributes.get(MerchantIdKey),
          });
        return found;
      },
      (found) => found.length === 2,
      15_000,
      'the resends’ runs listed by MerchantId',
    );
    expect(runs.map((w) => w.workflowId).sort()).toEqual([
      expect.stringMatching(new RegExp(`^${delivery!.id}-now-\\d+$`)),
      expect.stringMatching(new RegExp(`^${delivery!.id}-resend-\\d+$`)),
    ]);
    expect(runs.map((w) => w.merchantId)).toEqual([m.id, m.id]);
  });

  it('an attempt now that succeeds ends the delivery: the schedule beside it sends nothing more', async () => {
    let ok = false;
    const r = await startReceiver(() => ({ status: ok ? 200 : 500 }));
    closers.push(r.close);
    const m = await createApprovedMerchant(ctx.app);
    await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${r.url}/hooks` },
    });
    const opened = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    const id = opened.json().checkoutSession.id as string;
    const expired = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/checkout/sessions/${id}/expire`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    expect(expired.statusCode).toBe(200);
    const [delivery] = await eventually(
      () => deliveriesOf(id),
      (ds) => ds.length === 1 && ds[0]!.attempts.length === 1 && ds[0]!.attempts[0]!.statusCode === 500,
      15_000,
      'the first attempt',
    );
    ok = true;
    expect((await resend(delivery!.id)).json()).toMatchObject({ mode: 'attempt_now' });
    await eventually(
      () => deliveriesOf(id),
      (ds) => ds[0]!.status === 'succeeded',
      10_000,
      'the attempt now to succeed',
    );
    expect(r.received).toHaveLength(2);
    // Past the schedule's due time (4 s after the first attempt, with slack): still two POSTs, and the run ended.
    const handle = ctx.temporal.workflow.getHandle(id);
    await eventually(
      async () => (await handle.describe()).status.name,
      (s) => s === 'COMPLETED',
      15_000,
      'the payment run to end once its schedule found the delivery done',
    );
    expect(r.received).toHaveLength(2);
  });

  it('computes the schedule from the delivery log: doubling, capped, from the attempt’s end', () => {
    const schedule = { baseSeconds: 30, maxIntervalSeconds: 3600 };
    const now = new Date('2026-11-26T12:00:00Z');
    const at = (iso: string, durationMs = 250, statusCode: number | null = 500, error: string | null = 'HTTP 500') => ({
      attemptedAt: new Date(iso),
      durationMs,
      statusCode,
      error,
    });
    expect(nextAttemptAt([], schedule, now)).toBeNull();
    expect(nextAttemptAt([at('2026-11-26T11:59:00Z')], schedule, now)).toEqual(new Date('2026-11-26T11:59:30.250Z'));
    const three = [at('2026-11-26T11:50:00Z'), at('2026-11-26T11:50:30Z'), at('2026-11-26T11:51:31Z', 1000)];
    expect(nextAttemptAt(three, schedule, now)).toEqual(new Date('2026-11-26T11:53:32Z'));
    const many = Array.from({ length: 12 }, () => at('2026-11-26T11:00:00Z', 0));
    expect(nextAttemptAt(many, schedule, now)).toEqual(new Date('2026-11-26T12:00:00Z'));
    // An attempt logged without its outcome is under way for its 30 s limit, then counts as failed at it.
    expect(nextAttemptAt([at('2026-11-26T11:59:50Z', 0, null, INTERRUPTED_ATTEMPT)], schedule, now)).toBeNull();
    expect(nextAttemptAt([at('2026-11-26T11:59:00Z', 0, null, INTERRUPTED_ATTEMPT)], schedule, now)).toEqual(
      new Date('2026-11-26T12:00:00Z'),
    );
  });
});
