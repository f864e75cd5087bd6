import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, useTestApp } from '../support/harness';
import { paymentAtRest } from '../support/at-rest';
import { eventually, http } from '../support/http';
import { freePort } from '../support/free-port';
import { startReceiver } from '../support/receiver';

// Both rails end to end over real sockets: simple API → (provider page | deposit address) → the
// sandbox's test helper → signed callbacks → simpleOrder workflow → Postgres → GET /api/transaction,
// and the one transaction.settled webhook.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const customer = { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' };
const api = (path: string) => `${ctx.baseUrl}/api${path}`;

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let failing: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  failing = await startReceiver(() => ({ status: 500 }));
});
afterAll(async () => {
  await receiver?.close();
  await failing?.close();
});

async function checkout(body: Record<string, unknown> = {}) {
  const res = await http('POST', api('/checkout'), { body: { fiat_amount: 25, fiat_currency: 'EUR', customer, ...body } });
  expect(res.status).toBe(201);
  return res.json.data.transaction_code as string;
}

const transaction = async (code: string) => (await http('GET', api(`/transaction?transaction_code=${code}`))).json.data;
const waitFor = (code: string, status: string) =>
  eventually(
    () => transaction(code),
    (t) => t.status === status,
    20_000,
    `${code} to be ${status}`,
  );
const pay = (reference: string, outcome: 'succeeded' | 'declined') =>
  http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference, outcome } });
const adminOrder = async (code: string) =>
  (await ctx.app.inject({ method: 'GET', url: `/admin/v1/simple-orders/${code}`, headers: adminHeaders })).json().order;

describe('the fiat rail', () => {
  it('settles through the hosted Pay button and the provider page, and sends the webhook once with the spec types', async () => {
    const code = await checkout({ external_reference: 'shop-42', webhook_url: `${receiver.url}/hooks/simple` });
    const paid = await pay(code, 'succeeded');
    expect(paid.status).toBe(200);
    expect(paid.json.paymentId).toMatch(/^sbx_pay_/);

    const settled = await waitFor(code, 'settled');
    // Polygon has a chain verifier here: settled from the transfer into the order's own deposit
    // address; the payout to the customer's wallet is a step of its own, which may already have
    // been broadcast by the time this reads the order (payouts run on their own queue).
    expect(settled).toMatchObject({ fiat_amount: 25, fiat_currency: 'EUR', received_usd: 27, payment_method: 'card' });
    expect(settled.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);

    await eventually(
      async () => receiver.received.filter((d) => d.body.transaction_code === code).length,
      (n) => n === 1,
      10_000,
      'the webhook',
    );
    const delivery = receiver.received.find((d) => d.body.transaction_code === code)!;
    expect(delivery.path).toBe('/hooks/simple');
    expect(delivery.headers['content-type']).toBe('application/json');
    const body = delivery.body;
    expect(Object.keys(body).sort()).toEqual(
      [
        'event',
        'transaction_code',
        'external_reference',
        'fiat_amount',
        'fiat_currency',
        'received_usd',
        'wallet_address',
        'wallet_currency',
        'wallet_network',
        'payout_dispatched',
        'timestamp',
      ].sort(),
    );
    expect(body).toMatchObject({
      event: 'transaction.settled',
      transaction_code: code,
      external_reference: 'shop-42',
      fiat_amount: 25,
      fiat_currency: 'EUR',
      received_usd: 27,
      wallet_address: WALLET,
      wallet_currency: 'USDC',
      wallet_network: 'POLYGON',
      // Sent once the payout to the customer's wallet is broadcast.
      payout_dispatched: true,
    });
    expect(delivery.rawBody).toContain('"fiat_amount":25,');
    expect(delivery.rawBody).toContain('"received_usd":27,');
    expect(Number.isInteger(body.timestamp)).toBe(true);
    expect(Math.abs(body.timestamp - Date.now() / 1000)).toBeLessThan(60);

    // The receiver has the POST before the sender has written its outcome.
    const order = await eventually(
      () => adminOrder(code),
      (o) => o.webhook.status !== 'pending',
      20_000,
      'the webhook outcome to be recorded',
    );
    expect(order.webhook.status).toBe('delivered');
    expect(order.webhook.attempts).toEqual([{ at: expect.any(String), statusCode: 200, durationMs: expect.any(Number), error: null }]);
    expect((await ctx.temporal.workflow.getHandle(code).result()).status).toBe('settled');
  });

  it('fails a declined payment, with no webhook', async () => {
    const code = await checkout({ webhook_url: `${receiver.url}/hooks/declined` });
    expect((await pay(code, 'declined')).status).toBe(200);
    const failed = await waitFor(code, 'failed');
    expect(failed.payout_dispatched).toBe(false);
    expect((await adminOrder(code)).webhook).toEqual({ status: 'none', attempts: [] });
    expect(receiver.received.some((d) => d.body.transaction_code === code)).toBe(false);
  });
});

describe('the crypto rail', () => {
  it('settles from a deposit the sandbox forwards to the customer wallet', async () => {
    const code = await checkout({
      fiat_amount: 100,
      fiat_currency: 'USD',
      customer: { wallet_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', crypto_currency: 'USDT', crypto_currency_network: 'TRON' },
    });
    const link = await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=usdc_polygon`));
    expect(link.status).toBe(200);
    expect(link.json.data).toMatchObject({ amount: '100.000000', asset: 'USDC', network: 'POLYGON' });

    const paid = await pay(code, 'succeeded');
    expect(paid.status).toBe(200);
    expect(paid.json.depositId).toMatch(/^sbx_dep_/);
    const settled = await waitFor(code, 'settled');
    expect(settled).toMatchObject({
      received_usd: 100,
      payout_dispatched: true,
      payment_method: 'usdc_polygon',
      wallet_currency: 'USDT',
      wallet_network: 'TRON',
    });
    // A Tron transaction hash, on the sandbox explorer.
    expect(settled.transaction_hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await http('GET', settled.explorer_url)).status).toBe(200);
    const events = await ctx.db.sql`select type, state from provider_events where payment_id = ${code} order by received_at`;
    expect(events.map((e) => `${e.type}:${e.state}`)).toEqual(['payment.processing:signaled', 'payment.succeeded:signaled']);
    // Paid once: the helper cannot pay it again.
    expect((await pay(code, 'succeeded')).status).toBe(409);
  });
});

describe('the transaction.settled webhook has no retry', () => {
  it('makes exactly one attempt to a receiver answering 500, and records it', async () => {
    const code = await checkout({ webhook_url: `${failing.url}/hooks/500` });
    await http('GET', api(`/payment_link?transaction_code=${code}&payment_method=usdc_polygon`));
    expect((await pay(code, 'succeeded')).status).toBe(200);
    await waitFor(code, 'settled');
    const order = await eventually(
      () => adminOrder(code),
      (o) => o.webhook.status !== 'pending' && o.webhook.status !== 'none',
      10_000,
      'the attempt',
    );
    expect(order.webhook.status).toBe('failed');
    expect(order.webhook.attempts).toEqual([
      { at: expect.any(String), statusCode: 500, durationMs: expect.any(Number), error: 'HTTP 500' },
    ]);
    await ctx.temporal.workflow.getHandle(code).result();
    await paymentAtRest(ctx, code);
    expect(failing.received.filter((d) => d.body.transaction_code === code)).toHaveLength(1);
  });

  it('does not try again when the receiver is down, and GET /api/transaction still shows settled', async () => {
    const downPort = await freePort();
    const code = await checkout({ webhook_url: `http://127.0.0.1:${downPort}/hooks` });
    expect((await pay(code, 'succeeded')).status).toBe(200);
    const settled = await waitFor(code, 'settled');
    expect(settled.received_usd).toBe(27);
    const order = await eventually(
      () => adminOrder(code),
      (o) => o.webhook.status === 'failed',
      10_000,
      'the attempt',
    );
    expect(order.webhook.attempts).toHaveLength(1);
    expect(order.webhook.attempts[0].statusCode).toBeNull();
    expect(order.webhook.attempts[0].error).toMatch(/ECONNREFUSED|connect/i);
    expect((await ctx.temporal.workflow.getHandle(code).result()).status).toBe('settled');
    // The activity ran once: its history holds one scheduled webhook activity, never retried.
    const history = await ctx.temporal.workflow.getHandle(code).fetchHistory();
    const webhookTasks = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendSettledWebhook',
    );
    expect(webhookTasks).toHaveLength(1);
    expect(webhookTasks[0]!.activityTaskScheduledEventAttributes!.retryPolicy!.maximumAttempts).toBe(1);
    const started = (history.events ?? []).filter(
      (e) => e.activityTaskStartedEventAttributes && e.activityTaskStartedEventAttributes.attempt! > 1,
    );
    expect(started).toHaveLength(0);
    expect((await transaction(code)).status).toBe('settled');
  });
});
