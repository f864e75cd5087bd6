import { connect as netConnect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';

// NUL and invalid UTF-8 anywhere in input are a 400/422 in the envelope, never a 500;
// Fastify's own refusals are in the envelope with x-request-id too. The cases are those of the attack run.

const ctx = useTestApp({}, { listen: true });

type Res = { statusCode: number; headers: Record<string, unknown>; body: string; json(): any };

function expectV1(res: Res, status: number, error: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body).toEqual(expect.objectContaining({ ok: false, error, message: expect.any(String), requestId: expect.any(String) }));
  expect(res.headers['x-request-id']).toBe(body.requestId);
  return body;
}

function expectSimple(res: Res, status: number, error: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toEqual({ status: 'error', error, message: expect.any(String) });
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
}

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const NUL = 'a\u0000b';

describe('a NUL character in a body string (the eight routes of the attack run)', () => {
  it('is a 422 ValidationError naming the field, on every v1 and admin route', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const key = { authorization: `Bearer ${m.apiKey}` };
    const cases: [string, string, Record<string, string>, object, string][] = [
      ['POST', '/api/v1/checkout/sessions', key, { amount: 25, currency: 'USD', countryCode: 'US', orderId: NUL }, 'orderId'],
      ['POST', '/admin/v1/merchants', adminHeaders, { name: NUL }, 'name'],
      ['POST', '/api/v1/payment-links', key, { amount: 10, currency: 'USD', description: NUL }, 'description'],
      [
        'POST',
        '/api/v1/plugin/connect',
        {},
        {
          merchant_id: NUL,
          api_key: 'x',
          security_code: 'y',
          platform: 'custom',
          site_url: 'https://a.example',
          callback_url: 'https://a.example/cb',
          plugin_version: '1.1.0',
        },
        'merchant_id',
      ],
      [
        'POST',
        '/api/v1/checkout-sessions',
        key,
        { order_id: NUL, store_url: 'https://a.example', amount: 5, currency: 'USD', country_code: 'US' },
        'order_id',
      ],
      ['POST', `/admin/v1/merchants/${m.id}/webhook-endpoints`, adminHeaders, { url: `https://a.example/${NUL}` }, 'url'],
      ['PUT', `/admin/v1/merchants/${m.id}/wallets`, adminHeaders, { asset: 'USDC', network: 'polygon', address: NUL }, 'address'],
      [
        'POST',
        '/api/v1/checkout/sessions',
        key,
        { amount: 25, currency: 'USD', countryCode: 'US', metadata: { [NUL]: 'x' } },
        `metadata.${NUL}`,
      ],
    ];
    for (const [method, url, headers, payload, path] of cases) {
      const res = await ctx.app.inject({ method: method as 'POST', url, headers, payload });
      const body = expectV1(res, 422, 'ValidationError');
      expect(body.details, url).toEqual([{ path, message: expect.stringMatching(/NUL/) }]);
    }
    expect((await ctx.db.sql`select count(*)::int as n from checkout_sessions`)[0]!.n).toBe(0);
  });

  it('is a 422 in the simple envelope on the simple API (external_reference)', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/checkout',
      payload: {
        fiat_amount: 25,
        fiat_currency: 'EUR',
        external_reference: NUL,
        customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
      },
    });
    expectSimple(res, 422, 'ValidationError');
  });

  it('refuses a lone surrogate (an escaped half of a UTF-16 pair) the same way', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      payload: '{"name":"shop \\ud800"}',
    });
    expect(expectV1(res, 422, 'ValidationError').details).toEqual([{ path: 'name', message: 'must be valid Unicode text' }]);
  });
});

describe('invalid UTF-8 and NUL outside the body', () => {
  it('answers a body of invalid UTF-8 with 400 BadRequest and creates nothing', async () => {
    const payload = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      payload,
    });
    expectV1(res, 400, 'BadRequest');
    expect((await ctx.db.sql`select count(*)::int as n from merchants where name like 'caf%'`)[0]!.n).toBe(0);
  });

  it.each([
    ['/api/v1/payment-sessions/SV_abc?x=%00', 'v1'],
    ['/api/v1/payment-sessions/SV_%00', 'v1'],
    ['/api/transaction?transaction_code=%00', 'simple'],
    ['/api/transaction?transaction_code=%FF%FE', 'simple'],
    ['/api/transaction?transaction_code=100%', 'simple'],
    ['/api/v1/checkout/sessions/SV_abc?q=%C3%28', 'v1'],
    ['/pay/%00', 'v1'],
    // No route matches: the URL alone picks the envelope.
    ['/api/no-such-route?x=%00', 'simple'],
    ['/api/v1/no-such-route?x=%FF', 'v1'],
  ])('answers %s with 400 BadRequest in its envelope', async (url, face) => {
    const res = await ctx.app.inject({ method: 'GET', url });
    if (face === 'simple') expectSimple(res, 400, 'BadRequest');
    else expectV1(res, 400, 'BadRequest');
  });

  it('refuses a NUL in a header we read (Idempotency-Key, Authorization)', async () => {
    const m = await createApprovedMerchant(ctx.app);
    for (const headers of [{ authorization: `Bearer ${m.apiKey}`, 'idempotency-key': NUL }, { authorization: `Bearer ${NUL}` }]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/checkout/sessions',
        headers,
        payload: { amount: 25, currency: 'USD', countryCode: 'US' },
      });
      expectV1(res, 400, 'BadRequest');
    }
  });

  it('answers GET /pay/assets/__proto__ and friends with 404, not 500', async () => {
    for (const file of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/pay/assets/${file}` });
      expect(res.statusCode, file).toBe(404);
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    }
  });
});

describe("Fastify's own errors, in the envelope with x-request-id", () => {
  it.each([
    ['/api/v1/payment-sessions/%E0%A4%A', 'v1'],
    ['/api/%E0%A4%A', 'simple'],
    ['/admin/v1/merchants/%', 'v1'],
  ])('bad percent-encoding in the path: %s', async (url, face) => {
    const res = await ctx.app.inject({ method: 'GET', url });
    if (face === 'simple') expectSimple(res, 400, 'BadRequest');
    else expectV1(res, 400, 'BadRequest');
  });

  it('a path parameter over 100 characters', async () => {
    expectV1(await ctx.app.inject({ method: 'GET', url: `/api/v1/payment-sessions/SV_${'a'.repeat(120)}` }), 400, 'BadRequest');
    expectV1(await ctx.app.inject({ method: 'GET', url: `/pay/${'b'.repeat(150)}` }), 400, 'BadRequest');
  });

  it('content-type errors: unsupported media types, an empty JSON body, a poisoned prototype', async () => {
    const post = (headers: Record<string, string>, payload?: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/admin/v1/merchants',
        headers: { ...adminHeaders, ...headers },
        ...(payload === undefined ? {} : { payload }),
      });
    expectV1(await post({ 'content-type': 'application/xml' }, '<a/>'), 400, 'BadRequest');
    expectV1(await post({ 'content-type': 'application/json' }, ''), 400, 'BadRequest');
    expectV1(await post({ 'content-type': 'multipart/form-data; boundary=x' }, '--x--'), 400, 'BadRequest');
    expectV1(await post({ 'content-type': 'application/json' }, '{"__proto__":{"x":1},"name":"y"}'), 400, 'BadRequest');
  });

  it("the HTTP parser's 400 and 431, over a real socket", async () => {
    const { port } = new URL(ctx.baseUrl);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = netConnect(Number(port), '127.0.0.1');
        let data = '';
        socket.on('data', (d) => (data += d.toString()));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
        socket.write(request);
      });
    const parse = (response: string) => {
      const [head = '', body = ''] = response.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      const requestId = /^x-request-id: (\S+)$/im.exec(head)?.[1];
      return { status, requestId, body: JSON.parse(body) as Record<string, unknown> };
    };
    const overflow = parse(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(overflow.status).toBe(431);
    expect(overflow.body).toEqual({ ok: false, error: 'BadRequest', message: expect.any(String), requestId: overflow.requestId });
    const garbage = parse(await raw('NOT AN HTTP REQUEST\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect(garbage.body).toEqual({ ok: false, error: 'BadRequest', message: expect.any(String), requestId: garbage.requestId });
  });
});

describe('the simple API sets its own error handler', () => {
  it('answers its route errors in the { status } envelope and v1 errors in the v1 one', async () => {
    expectSimple(await ctx.app.inject({ method: 'GET', url: '/api/transaction?transaction_code=nope' }), 400, 'InvalidId');
    expectSimple(await ctx.app.inject({ method: 'GET', url: '/api/transaction' }), 422, 'ValidationError');
    expectSimple(await ctx.app.inject({ method: 'GET', url: '/api/nothing-here' }), 404, 'NotFound');
    expectV1(await ctx.app.inject({ method: 'GET', url: '/api/v1/payment-sessions/nope' }), 401, 'Unauthorized');
    expectV1(await ctx.app.inject({ method: 'GET', url: '/api/v1/nothing-here' }), 404, 'NotFound');
  });
});
