import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/domain/signatures';
import { createSandboxAdapter } from '../../src/providers/sandbox/adapter';
import { ProviderError } from '../../src/providers/types';
import { buildSandboxApp } from '../../sandbox/app';
import type { ProviderAdapter, ProviderPaymentRequest } from '../../src/providers/types';
import { freePort } from '../support/free-port';
import { eventually, http } from '../support/http';

// The sandbox provider over real sockets, as our service meets it: its API through the adapter, its
// pages as a browser posts them, its signed callbacks into a local stand-in for the service (which
// also plays our hosted page's Pay button for the test helper). No database, no Temporal.

const API_KEY = 'sbx_sk_test_0123456789';
const SECRET = 'sbx_whsec_test_0123456789';
const EVM_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

interface Callback {
  headers: Record<string, string>;
  rawBody: string;
  body: any;
}

let sandbox: FastifyInstance;
let service: FastifyInstance;
let sandboxUrl: string;
let serviceUrl: string;
let adapter: ProviderAdapter;
const callbacks: Callback[] = [];
/** Per reference: how many callbacks the stand-in service answers with 500 before accepting. */
const failuresLeft = new Map<string, number>();
/** Per reference: terms the stand-in service asks the sandbox for when its Pay button is pressed. */
const termsFor = new Map<string, Partial<ProviderPaymentRequest>>();
const starts: string[] = [];

const request = (reference: string, overrides: Partial<ProviderPaymentRequest> = {}): ProviderPaymentRequest => ({
  reference,
  sourceAmount: '19.99',
  sourceCurrency: 'EUR',
  destinationAsset: 'USDC',
  network: 'polygon',
  walletAddress: EVM_WALLET,
  countryCode: 'FR',
  callbackUrl: `${serviceUrl}/providers/sandbox/callbacks`,
  returnUrl: `${serviceUrl}/pay/${reference}`,
  ...overrides,
});

let counter = 0;
const newReference = () => `SV_sandboxtest${Date.now().toString(36)}${counter++}`;
const auth = { authorization: `Bearer ${API_KEY}` };
const callbacksFor = (reference: string) => callbacks.filter((c) => c.body.data.reference === reference);
/** The sandbox's own record of a payment's callbacks, once none is still being sent. */
const sentCallbacks = (reference: string) =>
  eventually(
    async () => (await http('GET', `${sandboxUrl}/test-helpers/payments/${reference}`)).json.events as { state: string }[],
    (events) => events.every((e) => e.state !== 'pending'),
    5000,
    `the callbacks of ${reference} sent`,
  );
const confirm = (checkoutUrl: string, outcome: string) =>
  fetch(`${checkoutUrl}/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ outcome }).toString(),
    redirect: 'manual',
  });

async function startService(): Promise<FastifyInstance> {
  const app = Fastify();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/providers/sandbox/callbacks', async (req, reply) => {
    const rawBody = req.body as string;
    const body = JSON.parse(rawBody);
    callbacks.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), rawBody, body });
    const left = failuresLeft.get(body.data.reference) ?? 0;
    if (left > 0) {
      failuresLeft.set(body.data.reference, left - 1);
      return reply.status(500).send({ ok: false });
    }
    return { ok: true };
  });
  // Our hosted page's Pay button: create the provider payment, send the customer to its page.
  app.post<{ Params: { ref: string } }>('/pay/:ref/start', async (req, reply) => {
    starts.push(req.params.ref);
    const terms = termsFor.get(req.params.ref);
    if (!terms) return reply.status(404).type('text/html').send('<h1>Checkout not found</h1>');
    const payment = await adapter.createPayment(request(req.params.ref, terms));
    return reply.redirect(payment.redirectUrl, 303);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

beforeAll(async () => {
  service = await startService();
  serviceUrl = `http://127.0.0.1:${(service.server.address() as { port: number }).port}`;
  const port = await freePort();
  sandboxUrl = `http://127.0.0.1:${port}`;
  sandbox = buildSandboxApp({ apiKey: API_KEY, callbackSecret: SECRET, publicUrl: sandboxUrl, serviceUrl });
  await sandbox.listen({ port, host: '127.0.0.1' });
  adapter = createSandboxAdapter({ url: sandboxUrl, apiKey: API_KEY, callbackSecret: SECRET });
});

afterAll(async () => {
  await sandbox?.close();
  await service?.close();
});

describe('sandbox API', () => {
  it('creates a payment (201), and returns the same one for the same reference (200)', async () => {
    const reference = newReference();
    const first = await http('POST', `${sandboxUrl}/v1/payments`, { headers: auth, body: request(reference) });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({
      reference,
      status: 'requires_action',
      sourceAmount: '19.99',
      sourceCurrency: 'EUR',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: EVM_WALLET,
      quote: { destinationAmount: '21.589200', rate: '1.080000' },
    });
    expect(first.json.id).toMatch(/^sbx_pay_[A-Za-z0-9]{24}$/);
    expect(first.json.checkoutUrl).toBe(`${sandboxUrl}/checkout/${first.json.id}`);

    const again = await http('POST', `${sandboxUrl}/v1/payments`, { headers: auth, body: request(reference) });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);

    const read = await http('GET', `${sandboxUrl}/v1/payments/${first.json.id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ id: first.json.id, status: 'requires_action' });
    expect((await http('GET', `${sandboxUrl}/v1/payments/sbx_pay_000000000000000000000000`, { headers: auth })).status).toBe(404);
  });

  it('refuses the same reference with other money terms', async () => {
    const reference = newReference();
    expect((await http('POST', `${sandboxUrl}/v1/payments`, { headers: auth, body: request(reference) })).status).toBe(201);
    const other = await http('POST', `${sandboxUrl}/v1/payments`, { headers: auth, body: request(reference, { sourceAmount: '20.00' }) });
    expect(other.status).toBe(409);
    expect(other.json.error).toBe('reference_conflict');
  });

  it('quotes through the adapter what the rates table says', async () => {
    expect(await adapter.quote({ sourceAmount: '1500', sourceCurrency: 'JPY', destinationAsset: 'USDT', network: 'tron' })).toEqual({
      destinationAmount: '10.050000',
      rate: '0.006700',
    });
    const bad = await http('GET', `${sandboxUrl}/v1/quote?sourceAmount=1.5&sourceCurrency=JPY&destinationAsset=USDC&network=polygon`, {
      headers: auth,
    });
    expect(bad.status).toBe(422);
  });

  it.each([
    ['no key', {}],
    ['a wrong key', { authorization: 'Bearer sbx_sk_wrong_key_000' }],
    ['a non-bearer scheme', { authorization: `Basic ${API_KEY}` }],
  ])('answers 401 to %s', async (_name, headers) => {
    const create = await http('POST', `${sandboxUrl}/v1/payments`, { headers, body: request(newReference()) });
    expect(create.status).toBe(401);
    expect(create.json).toMatchObject({ ok: false, error: 'unauthorized' });
    expect(
      (await http('GET', `${sandboxUrl}/v1/quote?sourceAmount=1&sourceCurrency=USD&destinationAsset=USDC&network=polygon`, { headers }))
        .status,
    ).toBe(401);
  });

  it.each([
    ['more decimals than EUR has', { sourceAmount: '19.999' }, 'sourceAmount'],
    ['a zero amount', { sourceAmount: '0.00' }, 'sourceAmount'],
    ['an unknown currency', { sourceCurrency: 'XYZ' }, 'sourceCurrency'],
    [
      'a pair that does not settle',
      { destinationAsset: 'USDT', network: 'solana', walletAddress: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV' },
      'network',
    ],
    ['a wallet of another network', { walletAddress: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' }, 'walletAddress'],
    ['a relative callback URL', { callbackUrl: '/callbacks' }, 'callbackUrl'],
    ['a bad e-mail', { customerEmail: 'not-an-email' }, 'customerEmail'],
    ['a reference with a slash', { reference: 'SV_a/b' }, 'reference'],
  ])('answers 422 to %s', async (_name, overrides, path) => {
    const res = await http('POST', `${sandboxUrl}/v1/payments`, { headers: auth, body: request(newReference(), overrides) });
    expect(res.status).toBe(422);
    expect(res.json.error).toBe('validation_error');
    expect(res.json.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('refuses a country it does not serve, and the adapter reports it as a ProviderError that no retry fixes', async () => {
    const res = await http('POST', `${sandboxUrl}/v1/payments`, { headers: auth, body: request(newReference(), { countryCode: 'KP' }) });
    expect(res.status).toBe(422);
    expect(res.json.error).toBe('country_not_supported');
    const refused = await adapter.createPayment(request(newReference(), { countryCode: 'IR' })).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ProviderError);
    expect((refused as ProviderError).status).toBe(422);
    expect((refused as ProviderError).retryable).toBe(false);
    // Unreachable is worth another try.
    const down = createSandboxAdapter({ url: 'http://127.0.0.1:1', apiKey: 'k'.repeat(16), callbackSecret: 's'.repeat(16) });
    const unreachable = await down.createPayment(request(newReference())).catch((err: unknown) => err);
    expect(unreachable).toBeInstanceOf(ProviderError);
    expect((unreachable as ProviderError).retryable).toBe(true);
  });
});

describe('sandbox payment page and callbacks', () => {
  it('renders the payment with both buttons', async () => {
    const payment = await adapter.createPayment(request(newReference()));
    const page = await http('GET', payment.redirectUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('19.99');
    expect(page.text).toContain('21.589200');
    expect(page.text).toContain(EVM_WALLET);
    expect(page.text).toMatch(/<button[^>]*>Pay 19\.99 EUR<\/button>/);
    expect(page.text).toMatch(/<button[^>]*>Decline<\/button>/);
    expect((await http('GET', `${sandboxUrl}/checkout/sbx_pay_unknown`)).status).toBe(404);
  });

  it('confirms a payment: back to the return URL, then signed processing and succeeded callbacks in order', async () => {
    const reference = newReference();
    const payment = await adapter.createPayment(request(reference));
    const res = await confirm(payment.redirectUrl, 'succeeded');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${serviceUrl}/pay/${reference}`);

    const received = await eventually(
      async () => callbacksFor(reference),
      (c) => c.length === 2,
      5000,
      'two callbacks',
    );
    expect(received.map((c) => c.body.type)).toEqual(['payment.processing', 'payment.succeeded']);
    const events = received.map((c) => {
      expect(c.headers['user-agent']).toBe('sandbox-provider/1.0');
      expect(c.headers['content-type']).toBe('application/json');
      expect(c.headers['sandbox-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const verified = adapter.verifyCallback(c.rawBody, c.headers, new Date());
      if (!verified.ok) throw new Error(`callback refused: ${verified.reason}`);
      return verified.event;
    });
    expect(events[0]).toMatchObject({
      type: 'payment.processing',
      reference,
      providerPaymentId: payment.providerPaymentId,
      sourceAmount: '19.99',
      sourceCurrency: 'EUR',
    });
    expect(events[0]!.transactionHash).toBeUndefined();
    const success = events[1]!;
    expect(success).toMatchObject({
      type: 'payment.succeeded',
      reference,
      destinationAmount: '21.589200',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: EVM_WALLET,
    });
    expect(success.eventId).toMatch(/^sbx_evt_[A-Za-z0-9]{24}$/);
    expect(success.eventId).not.toBe(events[0]!.eventId);
    expect(success.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(success.explorerUrl).toBe(`${sandboxUrl}/explorer/tx/${success.transactionHash}`);

    const explorer = await http('GET', success.explorerUrl!);
    expect(explorer.status).toBe(200);
    expect(explorer.text).toContain(success.transactionHash);
    expect(explorer.text).toContain('confirmed');
    expect((await http('GET', `${sandboxUrl}/explorer/tx/0x${'0'.repeat(64)}`)).status).toBe(404);

    const done = await http('GET', payment.redirectUrl);
    expect(done.text).toContain('succeeded');
    expect(done.text).not.toContain('<button');

    // A second confirmation (either outcome) changes nothing and sends nothing.
    expect((await confirm(payment.redirectUrl, 'declined')).status).toBe(303);
    expect((await confirm(payment.redirectUrl, 'succeeded')).status).toBe(303);
    // A confirmation decides what it sends before it answers: nothing was added, and nothing is on its way.
    expect(await sentCallbacks(reference)).toHaveLength(2);
    expect(callbacksFor(reference)).toHaveLength(2);
    expect((await http('GET', `${sandboxUrl}/v1/payments/${payment.providerPaymentId}`, { headers: auth })).json.status).toBe('succeeded');
  });

  it('declines a payment with one payment.failed callback', async () => {
    const reference = newReference();
    const payment = await adapter.createPayment(request(reference));
    expect((await confirm(payment.redirectUrl, 'declined')).status).toBe(303);
    const [failed] = await eventually(
      async () => callbacksFor(reference),
      (c) => c.length === 1,
      5000,
      'one callback',
    );
    const verified = adapter.verifyCallback(failed!.rawBody, failed!.headers, new Date());
    expect(verified.ok && verified.event).toMatchObject({ type: 'payment.failed', failureReason: 'card_declined', reference });
    expect(await sentCallbacks(reference)).toHaveLength(1);
    expect(callbacksFor(reference)).toHaveLength(1);

    // Asked again for the same terms (the customer's Try again), the declined payment takes a new
    // attempt, as a card processor's payment intent does; its callbacks are new events.
    const again = await adapter.createPayment(request(reference));
    expect(again.providerPaymentId).toBe(payment.providerPaymentId);
    expect(again.status).toBe('requires_action');
    expect((await confirm(again.redirectUrl, 'succeeded')).status).toBe(303);
    const all = await eventually(
      async () => callbacksFor(reference),
      (c) => c.length === 3,
      10_000,
      'the second attempt’s callbacks',
    );
    const types = all.map((c) => {
      const v = adapter.verifyCallback(c.rawBody, c.headers, new Date());
      return v.ok ? v.event.type : null;
    });
    expect(types).toEqual(['payment.failed', 'payment.processing', 'payment.succeeded']);
  });

  it('refuses an outcome the page does not offer', async () => {
    const payment = await adapter.createPayment(request(newReference()));
    expect((await confirm(payment.redirectUrl, 'refunded')).status).toBe(400);
    expect((await http('GET', `${sandboxUrl}/v1/payments/${payment.providerPaymentId}`, { headers: auth })).json.status).toBe(
      'requires_action',
    );
  });

  it('retries a refused callback with the same event id until the receiver takes it', async () => {
    const reference = newReference();
    failuresLeft.set(reference, 2);
    const payment = await adapter.createPayment(request(reference));
    await confirm(payment.redirectUrl, 'succeeded');
    const received = await eventually(
      async () => callbacksFor(reference),
      (c) => c.length === 4,
      10_000,
      'four deliveries',
    );
    // processing: 500, 500, 200 (one event id); then succeeded, only after processing went through.
    expect(received.map((c) => c.body.type)).toEqual([
      'payment.processing',
      'payment.processing',
      'payment.processing',
      'payment.succeeded',
    ]);
    expect(new Set(received.slice(0, 3).map((c) => c.body.id)).size).toBe(1);
    expect(received.slice(0, 3).map((c) => c.rawBody)).toEqual(Array(3).fill(received[0]!.rawBody));
    for (const c of received) expect(adapter.verifyCallback(c.rawBody, c.headers, new Date()).ok).toBe(true);

    const log = await http('GET', `${sandboxUrl}/test-helpers/payments/${reference}`);
    expect(log.status).toBe(200);
    const [processing, succeeded] = log.json.events;
    expect(processing).toMatchObject({ id: received[0]!.body.id, state: 'delivered' });
    expect(processing.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 200]);
    expect(succeeded.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([200]);
  });
});

describe('sandbox test helper', () => {
  it('pays a reference with no payment yet by pressing our Pay button, then the sandbox’s', async () => {
    const reference = newReference();
    termsFor.set(reference, { destinationAsset: 'USDC', network: 'solana', walletAddress: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV' });
    const res = await http('POST', `${sandboxUrl}/test-helpers/pay`, { body: { reference, outcome: 'succeeded' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, status: 'succeeded' });
    expect(res.json.paymentId).toMatch(/^sbx_pay_[A-Za-z0-9]{24}$/);
    expect(res.json.callbacks).toEqual([
      { eventId: expect.stringMatching(/^sbx_evt_/), type: 'payment.processing', delivered: true, statusCode: 200 },
      { eventId: expect.stringMatching(/^sbx_evt_/), type: 'payment.succeeded', delivered: true, statusCode: 200 },
    ]);
    expect(starts).toContain(reference);
    // It answers after the first attempts: both callbacks are already here.
    const success = callbacksFor(reference).find((c) => c.body.type === 'payment.succeeded')!;
    expect(success.body.data.transactionHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{88}$/);

    const again = await http('POST', `${sandboxUrl}/test-helpers/pay`, { body: { reference, outcome: 'succeeded' } });
    expect(again.status).toBe(409);
    expect(callbacksFor(reference)).toHaveLength(2);
  });

  it('pays a payment the customer already started, and declines too', async () => {
    const reference = newReference();
    await adapter.createPayment(
      request(reference, { destinationAsset: 'USDT', network: 'tron', walletAddress: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' }),
    );
    const res = await http('POST', `${sandboxUrl}/test-helpers/pay`, { body: { reference, outcome: 'declined' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'failed', callbacks: [{ type: 'payment.failed', delivered: true, statusCode: 200 }] });
    expect(starts).not.toContain(reference);
  });

  it('gives a tron payment a 64-hex hash without 0x', async () => {
    const reference = newReference();
    termsFor.set(reference, {
      destinationAsset: 'USDT',
      network: 'tron',
      walletAddress: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
      sourceAmount: '1500',
      sourceCurrency: 'JPY',
      countryCode: 'JP',
    });
    expect((await http('POST', `${sandboxUrl}/test-helpers/pay`, { body: { reference, outcome: 'succeeded' } })).status).toBe(200);
    const success = callbacksFor(reference).find((c) => c.body.type === 'payment.succeeded')!;
    expect(success.body.data).toMatchObject({ destinationAmount: '10.050000', sourceAmount: '1500', sourceCurrency: 'JPY' });
    expect(success.body.data.transactionHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('passes the service’s refusal through when it cannot start the payment', async () => {
    const res = await http('POST', `${sandboxUrl}/test-helpers/pay`, { body: { reference: 'SV_doesnotexist', outcome: 'succeeded' } });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ ok: false, error: 'service_refused', serviceStatus: 404 });
    expect(res.json.serviceBody).toContain('Checkout not found');
  });

  it('validates its input and reports unknown references', async () => {
    expect((await http('POST', `${sandboxUrl}/test-helpers/pay`, { body: { reference: 'SV_x', outcome: 'maybe' } })).status).toBe(422);
    expect((await http('POST', `${sandboxUrl}/test-helpers/pay`, { body: { reference: '../admin', outcome: 'succeeded' } })).status).toBe(
      422,
    );
    expect((await http('GET', `${sandboxUrl}/test-helpers/payments/SV_nothing`)).status).toBe(404);
  });
});

describe('callback verification', () => {
  const raw = JSON.stringify({
    id: 'sbx_evt_000000000000000000000001',
    type: 'payment.processing',
    createdAt: new Date().toISOString(),
    data: {
      paymentId: 'sbx_pay_000000000000000000000001',
      reference: 'SV_verify',
      status: 'processing',
      sourceAmount: '19.99',
      sourceCurrency: 'EUR',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: EVM_WALLET,
    },
  });
  const now = new Date();
  const t = Math.floor(now.getTime() / 1000);
  const signed = (secret = SECRET, body = raw) => ({ 'sandbox-signature': signatureHeader(secret, t, body) });

  it('accepts a genuine callback', () => {
    const verified = adapter.verifyCallback(raw, signed(), now);
    expect(verified).toMatchObject({
      ok: true,
      event: { provider: 'sandbox', eventId: 'sbx_evt_000000000000000000000001', type: 'payment.processing', reference: 'SV_verify' },
    });
  });

  it.each([
    ['a tampered body', () => adapter.verifyCallback(raw.replace('19.99', '99.99'), signed(), now), 'bad_signature'],
    ['a wrong secret', () => adapter.verifyCallback(raw, signed('sbx_whsec_someone_else_000'), now), 'bad_signature'],
    ['a stale timestamp', () => adapter.verifyCallback(raw, signed(), new Date(now.getTime() + 10 * 60_000)), 'stale_timestamp'],
    ['a missing header', () => adapter.verifyCallback(raw, {}, now), 'missing_signature'],
    [
      'a signed body that is not an event',
      () => adapter.verifyCallback('{"hello":1}', signed(SECRET, '{"hello":1}'), now),
      'malformed_body',
    ],
  ])('rejects %s', (_name, run, reason) => {
    expect(run()).toEqual({ ok: false, reason });
  });
});
