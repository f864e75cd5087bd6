import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { CheckoutApiError, createSvcClient, parseWebhook, type WebhookEvent } from '../../packages/sdk/src/index';
import { backoffMs, retryAfterMs } from '../../packages/sdk/src/transport';
import { freePort } from '../support/free-port';

// The SDK's transport against a real HTTP server on a local port that answers as a test script says:
// fails N times, answers 429 with Retry-After, hangs, drops the connection. What the server saw (each
// attempt, its headers, when it came) is what the assertions read; the service's behaviour behind
// these answers is tested against the service itself (test/sdk/package.test.ts).

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}
type Script = (seen: Seen, n: number, res: ServerResponse) => void;

const servers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of servers) await close();
});

async function scriptedServer(script: Script): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() };
      seen.push(s);
      script(s, seen.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const envelope = (error: string, message: string) => ({ ok: false, error, message, requestId: `req-${error}` });
const session = { id: 'SV_000000000000000000000001', status: 'pending', checkoutUrl: 'http://x/pay/SV_1' };
const body = { amount: 25, currency: 'USD', countryCode: 'US' } as const;
// Short delays keep the file fast; the policy is the same at any scale.
const fast = { apiKey: 'svc_live_test', initialRetryDelayMs: 20, maxRetryDelayMs: 80 };

describe('the SDK retries', () => {
  it('a POST that fails with 5xx twice, with backoff, sending one generated Idempotency-Key on every attempt', async () => {
    const api = await scriptedServer((_s, n, res) =>
      n <= 2 ? json(res, n === 1 ? 500 : 503, envelope('Unavailable', 'down')) : json(res, 201, { ok: true, checkoutSession: session }),
    );
    const svc = createSvcClient({ ...fast, baseUrl: api.url });
    const { data, response } = await svc.POST('/api/v1/checkout/sessions', { body });
    expect(response.status).toBe(201);
    expect(data.checkoutSession.id).toBe(session.id);
    expect(api.seen).toHaveLength(3);
    const keys = api.seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    expect(api.seen.map((s) => JSON.parse(s.body))).toEqual([body, body, body]);
    expect(api.seen.every((s) => s.headers.authorization === 'Bearer svc_live_test')).toBe(true);
    // Backoff: at least half the first delay before the first retry, more before the second.
    expect(api.seen[1]!.at - api.seen[0]!.at).toBeGreaterThanOrEqual(10);
    expect(api.seen[2]!.at - api.seen[1]!.at).toBeGreaterThanOrEqual(20);

    // Another call gets another key; a key the caller gives is sent as given; a GET carries none.
    await svc.POST('/api/v1/checkout/sessions', { body });
    await svc.POST('/api/v1/checkout/sessions', { body, params: { header: { 'idempotency-key': 'order-1001' } } });
    expect(api.seen[3]!.headers['idempotency-key']).not.toBe(keys[0]);
    expect(api.seen[4]!.headers['idempotency-key']).toBe('order-1001');
    await svc.GET('/api/v1/checkout/sessions/{id}', { params: { path: { id: session.id } } });
    expect(api.seen[5]!.headers['idempotency-key']).toBeUndefined();
  });

  it('stops after maxRetries and throws the last answer as a CheckoutApiError', async () => {
    const api = await scriptedServer((_s, _n, res) => json(res, 503, envelope('Unavailable', 'Postgres is away.')));
    const svc = createSvcClient({ ...fast, baseUrl: api.url, maxRetries: 3 });
    const err = await svc.POST('/api/v1/checkout/sessions', { body }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckoutApiError);
    expect(err).toMatchObject({
      status: 503,
      code: 'Unavailable',
      message: 'Postgres is away.',
      requestId: 'req-Unavailable',
      attempts: 4,
    });
    expect(api.seen).toHaveLength(4);
    expect(new Set(api.seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    // Per call, retries can be turned off.
    await expect(svc.POST('/api/v1/checkout/sessions', { body, maxRetries: 0 })).rejects.toMatchObject({ attempts: 1 });
    expect(api.seen).toHaveLength(5);
  });

  it('a 429 after the Retry-After it names, and not at all when it names a longer wait than allowed', async () => {
    const api = await scriptedServer((s, n, res) => {
      if (s.url.includes('long')) return json(res, 429, envelope('RateLimited', 'slow down'), { 'retry-after': '120' });
      return n === 1
        ? json(res, 429, envelope('RateLimited', 'slow down'), { 'retry-after': '1' })
        : json(res, 200, { ok: true, paymentSession: session });
    });
    const svc = createSvcClient({ ...fast, baseUrl: api.url });
    await svc.GET('/api/v1/payment-sessions/{id}', { params: { path: { id: 'SV_short' } } });
    expect(api.seen).toHaveLength(2);
    expect(api.seen[1]!.at - api.seen[0]!.at).toBeGreaterThanOrEqual(990);

    const err = await svc.GET('/api/v1/payment-sessions/{id}', { params: { path: { id: 'long' } } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'RateLimited', retryAfterSeconds: 120, attempts: 1 });
    expect(api.seen).toHaveLength(3);
  });

  it('a 409 that says Retry-After (the same key still being processed), never a 409 that does not', async () => {
    const api = await scriptedServer((s, n, res) => {
      if (s.url.includes('/expire')) return json(res, 409, envelope('Conflict', 'The session is completed.'));
      return n === 1
        ? json(res, 409, envelope('Conflict', 'still being processed'), { 'retry-after': '1' })
        : json(res, 201, { ok: true, checkoutSession: session });
    });
    const svc = createSvcClient({ ...fast, baseUrl: api.url });
    expect((await svc.POST('/api/v1/checkout/sessions', { body })).response.status).toBe(201);
    expect(api.seen).toHaveLength(2);
    expect(api.seen[0]!.headers['idempotency-key']).toBe(api.seen[1]!.headers['idempotency-key']);
    await expect(svc.POST('/api/v1/checkout/sessions/{id}/expire', { params: { path: { id: session.id } } })).rejects.toMatchObject({
      status: 409,
      code: 'Conflict',
      attempts: 1,
    });
    expect(api.seen).toHaveLength(3);
  });

  it('a dropped connection, and a refused one becomes network_error after the retries', async () => {
    const api = await scriptedServer((_s, n, res) =>
      n === 1 ? res.socket!.destroy() : json(res, 201, { ok: true, checkoutSession: session }),
    );
    const svc = createSvcClient({ ...fast, baseUrl: api.url });
    expect((await svc.POST('/api/v1/checkout/sessions', { body })).data.checkoutSession.id).toBe(session.id);
    expect(api.seen).toHaveLength(2);
    expect(api.seen[0]!.headers['idempotency-key']).toBe(api.seen[1]!.headers['idempotency-key']);

    const nobody = createSvcClient({ ...fast, baseUrl: `http://127.0.0.1:${await freePort()}` });
    const err = await nobody.POST('/api/v1/checkout/sessions', { body }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckoutApiError);
    expect(err).toMatchObject({ status: null, code: 'network_error', requestId: null, attempts: 3 });
    expect((err as Error).message).toContain('ECONNREFUSED');
  });

  it('times out each attempt of a service that hangs, retries it, and throws timeout', async () => {
    const api = await scriptedServer(() => undefined);
    const svc = createSvcClient({ ...fast, baseUrl: api.url, timeoutMs: 300, maxRetries: 1 });
    const started = Date.now();
    const err = await svc.POST('/api/v1/checkout/sessions', { body }).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(err).toMatchObject({ name: 'CheckoutApiError', status: null, code: 'timeout', attempts: 2 });
    expect(api.seen).toHaveLength(2);
    expect(api.seen[0]!.headers['idempotency-key']).toBe(api.seen[1]!.headers['idempotency-key']);
    expect(took).toBeGreaterThanOrEqual(600);
    expect(took).toBeLessThan(5000);
    // A per-call timeout, and the caller's own signal, which is not retried.
    await expect(svc.GET('/api/v1/balance', { timeoutMs: 50, maxRetries: 0 })).rejects.toMatchObject({ code: 'timeout' });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    await expect(svc.GET('/api/v1/balance', { signal: caller.signal })).rejects.toMatchObject({ code: 'aborted', attempts: 1 });
  });
});

describe('the SDK’s one error path', () => {
  it('throws the envelope of a 4xx at once, with status, code, message, requestId and details', async () => {
    const api = await scriptedServer((s, _n, res) =>
      s.method === 'POST'
        ? json(res, 422, {
            ...envelope('ValidationError', 'The request body is not valid.'),
            details: [{ path: 'amount', message: 'Too small.' }],
          })
        : json(res, 404, envelope('NotFound', 'Payment not found.')),
    );
    const svc = createSvcClient({ ...fast, baseUrl: api.url });
    const missing = await svc.GET('/api/v1/payment-sessions/{id}', { params: { path: { id: 'SV_x' } } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CheckoutApiError);
    expect(missing).toMatchObject({ status: 404, code: 'NotFound', message: 'Payment not found.', requestId: 'req-NotFound', details: [] });
    const refused = await svc.POST('/api/v1/checkout/sessions', { body }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 422, code: 'ValidationError', details: [{ path: 'amount', message: 'Too small.' }] });
    expect(api.seen).toHaveLength(2);
  });

  it('an answer without the envelope (a proxy’s page) is unexpected_response, with the x-request-id it had', async () => {
    const api = await scriptedServer((_s, _n, res) =>
      res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'edge-1' }).end('<h1>Bad gateway</h1>'),
    );
    const svc = createSvcClient({ ...fast, baseUrl: api.url, maxRetries: 1 });
    await expect(svc.GET('/api/v1/balance')).rejects.toMatchObject({
      status: 502,
      code: 'unexpected_response',
      requestId: 'edge-1',
      attempts: 2,
    });
  });
});

describe('svc.list', () => {
  it('pages through a list with its cursor, retrying a failed page, with the filters on every page', async () => {
    const ids = Array.from({ length: 5 }, (_, i) => `SV_${i}`);
    const api = await scriptedServer((s, n, res) => {
      const query = new URL(s.url, 'http://x').searchParams;
      if (n === 2) return json(res, 503, envelope('Unavailable', 'once'));
      const from = Number(query.get('cursor') ?? 0);
      const page = ids.slice(from, from + 2).map((id) => ({ ...session, id }));
      json(res, 200, { ok: true, checkoutSessions: page, nextCursor: from + 2 < ids.length ? String(from + 2) : null });
    });
    const svc = createSvcClient({ ...fast, baseUrl: api.url });
    const got: string[] = [];
    for await (const s of svc.list('/api/v1/checkout/sessions', { status: ['pending'], limit: 2 })) {
      expectTypeOf(s.id).toEqualTypeOf<string>();
      got.push(s.id);
    }
    expect(got).toEqual(ids);
    expect(api.seen.map((s) => new URL(s.url, 'http://x').search)).toEqual([
      '?status=pending&limit=2',
      '?status=pending&limit=2&cursor=2',
      '?status=pending&limit=2&cursor=2',
      '?status=pending&limit=2&cursor=4',
    ]);
  });
});

describe('the retry policy', () => {
  it('doubles the delay up to its ceiling, jittered within [half, whole); reads Retry-After as seconds or a date', () => {
    const policy = { maxRetries: 5, timeoutMs: 1000, initialRetryDelayMs: 500, maxRetryDelayMs: 8000, maxRetryAfterMs: 60_000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, policy, () => 0.999999))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect([1, 2, 3].map((n) => backoffMs(n, policy, () => 0))).toEqual([250, 500, 1000]);
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10_000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });
});

describe('parseWebhook', () => {
  it('types a verified body as the union of every event, narrowed by its event name', () => {
    // The narrowing is checked by the compiler (npm run typecheck); the assertions keep it honest at run time.
    const narrow = (e: WebhookEvent): string => {
      switch (e.event) {
        case 'payment.refunded':
          return e.refund.transactionHash;
        case 'payment.exception':
          return e.exceptionId;
        case 'webhook.test':
          return e.endpointId;
        case 'payment.completed':
          expectTypeOf(e.status).toEqualTypeOf<'pending' | 'processing' | 'completed' | 'failed' | 'expired' | 'canceled'>();
          return e.sessionId;
        default:
          return e.sessionId;
      }
    };
    const raw = JSON.stringify({ event: 'webhook.test', eventId: 'evt_1', merchantId: 'mrc_1', endpointId: 'whe_1', createdAt: 'now' });
    const t = Math.floor(Date.now() / 1000);
    const header = `t=${t},v1=${createHmac('sha256', 'whsec_x').update(`${t}.${raw}`).digest('hex')}`;
    const parsed = parseWebhook(raw, header, 'whsec_x');
    expect(parsed.ok && narrow(parsed.event)).toBe('whe_1');
    expect(parseWebhook(raw, header, 'whsec_y')).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
