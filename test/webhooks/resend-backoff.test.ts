import { afterAll, describe, expect, it } from 'vitest';
import { nextAttemptAt } from '../../src/payments/webhook-deliveries';
import { INTERRUPTED_ATTEMPT } from '../../src/db/queries/webhooks';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { startReceiver } from '../support/receiver';
import { depositAddressOf } from '../support/proof';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// Issue 31 item 7: an operator's resend of a delivery that is still backing off answers 409 with when
// its next attempt is due (the message and Retry-After), which is when the schedule really makes it.
// Retries: 2 s base, doubling, at most 8 s apart.
const ctx = useTestApp(
  { WEBHOOK_RETRY_BASE_SECONDS: '2', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '8', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_WINDOW_HOURS: '1' },
  { sandbox: true, worker: true },
);
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const resend = (id: string) => ctx.app.inject({ method: 'POST', url: `/admin/v1/webhook-deliveries/${id}/resend`, headers: adminHeaders });
const deliveriesOf = async (paymentId: string) =>
  (await ctx.app.inject({ method: 'GET', url: `/admin/v1/webhook-deliveries?paymentId=${paymentId}`, headers: adminHeaders })).json()
    .deliveries as { id: string; status: string; attempts: unknown[] }[];

describe('deliveries resend during backoff', () => {
  it('answers 409 with the next attempt time, which the schedule keeps; resends once the delivery succeeded', async () => {
    let failing = true;
    const r = await startReceiver(() => ({ status: failing ? 500 : 200 }));
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

    // The first attempt (the run's local one) got its 500 and was logged: the delivery backs off.
    const [delivery] = await eventually(
      () => deliveriesOf(id),
      (ds) => ds.length === 1 && ds[0]!.attempts.length === 1 && r.received.length === 1,
      15_000,
      'the first attempt',
    );
    expect(delivery!.status).toBe('pending');
    const refused = await resend(delivery!.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ ok: false, error: 'Conflict' });
    const due = /next attempt is due at (\S+) \(in (\d+) s\)/.exec(refused.json().message);
    expect(due, refused.json().message).not.toBeNull();
    expect(refused.headers['retry-after']).toBe(due![2]);
    const dueAt = new Date(due![1]!).getTime();
    // After attempt 1 the schedule waits the base interval, 2 s, from the attempt's end.
    expect(dueAt - r.received[0]!.at).toBeGreaterThan(1500);
    expect(dueAt - r.received[0]!.at).toBeLessThan(3500);
    // Nothing changed: no second run, the same one attempt.
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'pending', attempts: [expect.anything()] });

    await eventually(
      async () => r.received.length,
      (n) => n >= 2,
      15_000,
      'the second attempt',
    );
    // The schedule attempted when the answer said (the worker polls, so allow it a little slack).
    expect(Math.abs(r.received[1]!.at - dueAt)).toBeLessThan(1500);

    // Asked again after attempt 2, the answer moves on by the doubled interval, 4 s.
    await eventually(
      async () => (await deliveriesOf(id))[0]!.attempts.length,
      (n) => n === 2,
      5_000,
    );
    const again = await resend(delivery!.id);
    expect(again.statusCode).toBe(409);
    const dueAgain = new Date(/due at (\S+) /.exec(again.json().message)![1]!).getTime();
    expect(dueAgain - r.received[1]!.at).toBeGreaterThan(3500);
    expect(dueAgain - r.received[1]!.at).toBeLessThan(5500);

    failing = false;
    await eventually(
      () => deliveriesOf(id),
      (ds) => ds[0]!.status === 'succeeded',
      20_000,
      'the delivery succeeding',
    );
    const sent = await resend(delivery!.id);
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toEqual({ ok: true, deliveryId: delivery!.id, status: 'pending' });
    const before = r.received.length;
    await eventually(
      async () => r.received.length,
      (n) => n > before,
      15_000,
      'the resent delivery',
    );
    expect(r.received.at(-1)!.headers['svc-delivery-id']).toBe(delivery!.id);
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
