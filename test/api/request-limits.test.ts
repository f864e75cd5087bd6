import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { http } from '../support/http';

// Requests per API key per second (API_RATE_LIMIT_PER_SECOND, 3 here) with the RateLimit headers of
// draft-ietf-httpapi-ratelimit-headers-07; the simple API's orders per client address a minute
// (SIMPLE_API_ORDERS_PER_MINUTE, 3 here), the address as TRUST_PROXY allows it; and the simple
// API's transport errors in its own envelope. Real sockets: the peer is a proxy at 127.0.0.1.
const ctx = useTestApp(
  { API_RATE_LIMIT_PER_SECOND: '3', SIMPLE_API_ORDERS_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1/32' },
  // The sandbox prices an order's amount.
  { listen: true, sandbox: true },
);

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const balance = (key: string) => http('GET', `${ctx.baseUrl}/api/v1/balance`, { headers: bearer(key) });

const customer = {
  wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  crypto_currency: 'USDC',
  crypto_currency_network: 'POLYGON',
};
const order = (forwardedFor: string) =>
  http('POST', `${ctx.baseUrl}/api/checkout`, {
    headers: { 'x-forwarded-for': forwardedFor },
    body: { fiat_amount: 25, fiat_currency: 'USD', customer },
  });

/** Bytes written to the API's socket as they are, and the answer as text. */
function raw(request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(ctx.config.http.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(request);
  });
}
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

function expectSimpleError(res: { status: number; json: any }, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.json).toEqual({ status: 'error', error, message: expect.any(String) });
}

describe('requests per API key', () => {
  it('says the policy and what is left on ordinary answers', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await balance(m.apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('3;w=1');
    expect(res.headers.get('ratelimit')).toMatch(/^limit=3, remaining=[0-2], reset=1$/);
  });

  it('answers 429 with Retry-After in the envelope past the limit, to that key only', async () => {
    const busy = await createApprovedMerchant(ctx.app);
    const calm = await createApprovedMerchant(ctx.app);
    const answers = await Promise.all(Array.from({ length: 20 }, () => balance(busy.apiKey)));
    const passed = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    // Twenty at once fall in one one-second window, or two at most.
    expect(passed.length).toBeGreaterThanOrEqual(3);
    expect(passed.length).toBeLessThanOrEqual(6);
    expect(passed.length + refused.length).toBe(20);
    const no = refused[0]!;
    expect(no.json).toEqual({
      ok: false,
      error: 'RateLimited',
      message: expect.stringContaining('3 requests a second'),
      requestId: expect.any(String),
    });
    expect(no.headers.get('retry-after')).toBe('1');
    expect(no.headers.get('ratelimit-policy')).toBe('3;w=1');
    expect(no.headers.get('ratelimit')).toBe('limit=3, remaining=0, reset=1');

    // Another key (of another merchant) has its own count.
    const other = await balance(calm.apiKey);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toMatch(/^limit=3, remaining=2, reset=1$/);
  });

  it('is in the OpenAPI document: a 429 on every keyed operation, the headers on its answers, Retry-After on the 429', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    }>();
    const keyed = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method} ${path}`, op })))
      .filter(({ op }) => (op.security?.length ?? 0) > 0);
    expect(keyed.length).toBeGreaterThan(10);
    for (const { name, op } of keyed) {
      expect(Object.keys(op.responses['429']?.headers ?? {}), name).toEqual(['RateLimit-Policy', 'RateLimit', 'Retry-After']);
      const ordinary = Object.entries(op.responses).find(([status]) => status.startsWith('2'))!;
      if (!name.endsWith('/events/stream')) expect(Object.keys(ordinary[1].headers ?? {}), name).toContain('RateLimit');
    }
    expect(Object.keys(doc.paths['/api/checkout']!.post!.responses)).toContain('429');
  });
});

describe('simple-API orders per client address', () => {
  it('refuses the order past the limit with 429 and Retry-After in the simple envelope, and only for that address', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await order('203.0.113.7'));
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    const refused = await order('203.0.113.7');
    expectSimpleError(refused, 429, 'RateLimited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // An address of the same IPv6 /64 is the same client; another address is not.
    expect((await order('198.51.100.9')).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await order(`2001:db8:1:2::${i + 1}`)).status).toBe(201);
    expectSimpleError(await order('2001:db8:1:2:ffff::1'), 429, 'RateLimited');
    // Reading is not limited.
    const code = made[0]!.json.data.transaction_code as string;
    expect(
      (await http('GET', `${ctx.baseUrl}/api/transaction?transaction_code=${code}`, { headers: { 'x-forwarded-for': '203.0.113.7' } }))
        .status,
    ).toBe(200);
  });
});

describe("the simple API's transport errors", () => {
  const post = (body: string | Buffer, headers: Record<string, string>) =>
    fetch(`${ctx.baseUrl}/api/checkout`, { method: 'POST', headers: { 'x-forwarded-for': '192.0.2.44', ...headers }, body }).then(
      async (res) => ({ status: res.status, json: await res.json() }),
    );

  it('answers bad JSON, an empty body, text that is not UTF-8, a body too large and a wrong content type in the simple envelope', async () => {
    expectSimpleError(await post('{"fiat_amount":', { 'content-type': 'application/json' }), 400, 'BadRequest');
    expectSimpleError(await post('', { 'content-type': 'application/json' }), 400, 'BadRequest');
    expectSimpleError(await post(Buffer.from([0x7b, 0xff, 0x7d]), { 'content-type': 'application/json' }), 400, 'BadRequest');
    expectSimpleError(
      await post(JSON.stringify({ x: 'x'.repeat(70_000) }), { 'content-type': 'application/json' }),
      413,
      'PayloadTooLarge',
    );
    expectSimpleError(await post('fiat_amount=25', { 'content-type': 'text/plain' }), 400, 'BadRequest');
    expectSimpleError(await post('fiat_amount=25', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'BadRequest');
    // A body too large sent in chunks (no Content-Length to refuse it by), and one that claims to be compressed.
    const chunked = await raw(
      `POST /api/checkout HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        `11170\r\n${'{'.padEnd(70_000, ' ')}\r\n0\r\n\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(chunked)).toEqual({ status: 'error', error: 'PayloadTooLarge', message: expect.any(String) });
    const gzip = await raw(
      `POST /api/checkout HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    expect(bodyOf(gzip)).toMatchObject({ status: 'error' });
  });

  it('answers what the HTTP parser refuses on a simple-API path in the simple envelope too', async () => {
    const huge = await raw(`GET /api/transaction?transaction_code=x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(huge)).toEqual({ status: 'error', error: 'BadRequest', message: expect.any(String) });
    const v1 = await raw(`GET /api/v1/balance HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(bodyOf(v1)).toMatchObject({ ok: false, error: 'BadRequest' });
  });
});
