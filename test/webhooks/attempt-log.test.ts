import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_ATTEMPT } from '../../src/db/queries/webhook-attempts';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { envFor, killHard, startEntryPoint } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// Every POST a receiver sees is in the delivery log, also when the worker dies in
// the middle of an attempt. The receiver holds the first request; the worker is SIGKILLed while it
// waits; the next worker retries. The receiver saw two POSTs, and the log has two attempts.
const ctx = useTestApp({ WEBHOOK_RETRY_BASE_SECONDS: '1' }, { listen: true, sandbox: true });
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) await killHard(c);
});

const startWorker = async () => {
  const { child } = await startEntryPoint('worker.ts', envFor(ctx.config), /worker: polling/);
  children.push(child);
  return child;
};

describe('the delivery log when a worker dies mid-attempt', () => {
  it('has one attempt for every POST the receiver saw, the cut one marked interrupted', async () => {
    // The first POST is held longer than the worker lives; every later one is answered at once.
    const receiver = await startReceiver((_d, i) => (i === 0 ? { status: 200, delayMs: 20_000 } : { status: 200 }));
    const first = await startWorker();
    const m = await createApprovedMerchant(ctx.app);
    const added = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${receiver.url}/hooks` },
    });
    expect(added.statusCode).toBe(201);
    const created = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 10, currency: 'USD', countryCode: 'US' },
    });
    const id = created.json.checkoutSession.id as string;
    // The provider's word that the payment is under way: one event (payment.processing), one delivery
    // to the receiver. A signal: nothing waits for the held delivery.
    const [{ deposit_address: walletAddress }] = (await ctx.db
      .sql`select deposit_address from checkout_sessions where id = ${id}`) as unknown as [{ deposit_address: string }];
    const session = { id, amount: '10.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress };
    expect(
      (await postCallback(ctx.app, sandboxEvent(session, 'payment.processing'), { secret: ctx.config.providers.sandbox.callbackSecret }))
        .statusCode,
    ).toBe(200);

    await eventually(
      async () => receiver.received.length,
      (n) => n === 1,
      30_000,
      'the first POST at the receiver',
    );
    await killHard(first);
    await startWorker();
    // The attempt's 30 s start-to-close timeout passes, then the retry goes out from the new worker.
    await eventually(
      async () => receiver.received.length,
      (n) => n >= 2,
      90_000,
      'the retried POST',
    );

    const deliveries = await eventually(
      () =>
        ctx.app
          .inject({ method: 'GET', url: `/admin/v1/webhook-deliveries?paymentId=${id}`, headers: adminHeaders })
          .then((r) => r.json().deliveries),
      (d: { status: string; attempts: { statusCode: number | null; error: string | null }[] }[]) =>
        d.length === 1 && d[0]!.status === 'succeeded',
      20_000,
      'the delivery to succeed',
    );
    const attempts = deliveries[0]!.attempts;
    expect(attempts).toHaveLength(receiver.received.length);
    expect(attempts[0]).toMatchObject({ statusCode: null, error: INTERRUPTED_ATTEMPT });
    expect(attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });
    // The same delivery and event ids on both POSTs.
    expect(new Set(receiver.received.map((d) => d.headers['svc-delivery-id'])).size).toBe(1);
    await receiver.close();
  }, 180_000);
});
