import { ensureSettlementSchedule } from '../../src/temporal/settlement-schedules';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { businessLog, type BusinessEventFields, type BusinessEventName } from '../../src/logging';
import { settlementKeys } from '../../src/chains/derivation';
import { createWorker, type CheckoutWorker } from '../../src/worker/worker';
import { payFromWallet } from '../support/chain';
import { activitiesFor, adminHeaders, startTestWatchers, useTestApp, workflowBundle } from '../support/harness';
import { eventually } from '../support/http';
import { depositAddressOf, payDirect } from '../support/proof';
import { startReceiver } from '../support/receiver';
import { merchantWithFreshWallet, ownTreasury } from '../payouts/support';

// One structured line per business transition, written by the use cases (the API)
// and the activities (the worker), never by workflow code; each names the payment and its merchant,
// so `grep SV_…` tells a payment's story. The app and worker here write into `lines`.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true });
const lines: (BusinessEventFields & { event: BusinessEventName })[] = [];
const capture = (event: BusinessEventName, fields: BusinessEventFields) => void lines.push({ event, ...fields });
let app: FastifyInstance;
let worker: CheckoutWorker;
let stopWatchers: () => Promise<void>;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  app = await buildApp(
    {
      config: ctx.config,
      db: ctx.db,
      temporal: ctx.temporal,
      providers: ctx.providers,
      treasuryAddress: settlementKeys(own.mnemonic).treasury.address,
      businessLog: capture,
    },
    { logger: false },
  );
  await app.ready();
  worker = await createWorker({
    temporal: ctx.config.temporal,
    activities: activitiesFor(ctx, { log: capture }),
    workflowBundle: await workflowBundle(),
  });
  void worker.run();
  const watchers = startTestWatchers(ctx);
  // The settlement runs that sweep and pay, as every worker has them.
  const removeSchedules = await ensureSettlementSchedule(ctx.temporal, {
    taskQueue: ctx.config.temporal.taskQueue,
    networks: ctx.config.chains.networks,
    settlement: ctx.config.chains.settlement,
  });
  stopWatchers = async () => {
    await removeSchedules();
    await watchers.stop();
  };
});
afterAll(async () => {
  await stopWatchers?.();
  await worker?.shutdown();
  await app?.close();
  for (const close of closers) await close();
});

const of = (paymentId: string) => lines.filter((l) => l.paymentId === paymentId);
const names = (paymentId: string) => of(paymentId).map((l) => l.event);

async function merchantWithEndpoint() {
  const receiver = await startReceiver();
  closers.push(receiver.close);
  const m = await merchantWithFreshWallet({ ...ctx, app });
  const added = await app.inject({
    method: 'POST',
    url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
    headers: adminHeaders,
    payload: { url: `${receiver.url}/hooks?token=not-for-logs` },
  });
  expect(added.statusCode).toBe(201);
  return m;
}

async function openSession(apiKey: string) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US', orderId: 'order-77' },
  });
  expect(res.statusCode).toBe(201);
  return res.json().checkoutSession.id as string;
}

describe('business events in the logs', () => {
  it('follows a paid session from creation to its payout and webhooks, each line with its payment and merchant', async () => {
    const m = await merchantWithEndpoint();
    const id = await openSession(m.apiKey);
    await payDirect({ app }, id, own.chain);
    await eventually(
      async () => names(id),
      (n) => n.includes('payment.settled') && n.filter((e) => e === 'webhook.delivered').length >= 2,
      60_000,
      'the payment settled and both webhooks delivered',
    );
    const story = of(id);
    for (const line of story) {
      expect(line.paymentId, line.event).toBe(id);
      expect(line.merchantId, line.event).toBe(m.id);
    }
    const events = names(id);
    for (const expected of [
      'session.created',
      'payment.completed',
      'payout.sent',
      'payout.confirmed',
      'payment.settled',
      'webhook.delivered',
    ]) {
      expect(events, expected).toContain(expected);
    }
    // One line per transition: the worker's retries and replays add none.
    for (const once of ['session.created', 'payment.completed', 'payment.settled'])
      expect(events.filter((e) => e === once)).toHaveLength(1);
    expect(story.find((l) => l.event === 'session.created')).toMatchObject({
      workflowId: id,
      railType: 'fiat_to_crypto',
      amount: '25.00',
      currency: 'USD',
      network: 'polygon',
      orderId: 'order-77',
    });
    expect(story.find((l) => l.event === 'payment.completed')).toMatchObject({
      workflowId: id,
      railType: 'crypto_transfer',
      grossAmount: expect.stringMatching(/^\d+\.\d{6}$/),
    });
    const payouts = story.filter((l) => l.event === 'payout.confirmed');
    // The settlement run's sweep of its deposit and the merchant's payout, each with this payment's part.
    expect(payouts.map((p) => p.kind)).toEqual(expect.arrayContaining(['sweep', 'merchant']));
    expect(payouts.find((p) => p.kind === 'merchant')).toMatchObject({
      to: m.wallet,
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    // A webhook line names the target's host, never its URL (a token may hide in it).
    const delivered = story.find((l) => l.event === 'webhook.delivered')!;
    expect(delivered).toMatchObject({ statusCode: 200, eventType: expect.stringMatching(/^payment\./) });
    expect(JSON.stringify(story)).not.toContain('not-for-logs');
  }, 90_000);

  it('logs an expiry and the late money that follows it as an exception', async () => {
    const m = await merchantWithEndpoint();
    const id = await openSession(m.apiKey);
    const expired = await app.inject({
      method: 'POST',
      url: `/api/v1/checkout/sessions/${id}/expire`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    expect(expired.statusCode).toBe(200);
    await eventually(
      async () => names(id),
      (n) => n.includes('payment.expired'),
      20_000,
      'the expiry',
    );
    await payFromWallet(own.chain, own.chain.tokens.polygon.USDC, await depositAddressOf(ctx, id), 3_000_000n);
    await eventually(
      async () => names(id),
      (n) => n.includes('exception.recorded'),
      30_000,
      'the late exception',
    );
    expect(of(id).find((l) => l.event === 'exception.recorded')).toMatchObject({
      merchantId: m.id,
      kind: 'late',
      amount: '3.000000',
      exceptionId: expect.stringMatching(/^exc_/),
    });
    expect(names(id).slice(0, 2)).toEqual(['session.created', 'payment.expired']);
  }, 60_000);

  it('writes each as one JSON line whose message carries the payment id, so grep finds it', () => {
    const written: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        written.push(chunk.toString());
        done();
      },
    });
    businessLog(pino({ level: 'info' }, sink))('payment.completed', { paymentId: 'SV_abc', merchantId: 'MER_x', amount: '25.00' });
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0]!)).toMatchObject({
      level: 30,
      businessEvent: 'payment.completed',
      paymentId: 'SV_abc',
      merchantId: 'MER_x',
      amount: '25.00',
      msg: 'payment.completed SV_abc',
    });
  });
});
