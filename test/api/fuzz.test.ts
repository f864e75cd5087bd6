import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createApprovedMerchant, useTestApp } from '../support/harness';

// The HTTP frame and production safety, by fuzzing: whatever a client sends to any route (odd types, NUL, lone
// surrogates, invalid UTF-8 bytes, bad percent-encoding, long strings, unknown fields), the answer is
// never a 5xx, and every error is in its envelope with x-request-id. Routes come from the OpenAPI
// document (with their body, query and path parameters) plus the hidden hosted and callback routes.
// Hosted pages answer browsers in HTML; they must still carry x-request-id and never fail with a 5xx.

// The sandbox provider runs: a valid simple checkout is priced by its quote, and a provider that is
// not there is an honest 503, not what this test looks for.
// The per-key and per-address limits raised out of the way: a 429 would answer for the code behind it.
const ctx = useTestApp({ API_RATE_LIMIT_PER_SECOND: '10000', SIMPLE_API_ORDERS_PER_MINUTE: '10000' }, { sandbox: true });

const RUNS_PER_ROUTE = 90;
const TIME_PER_ROUTE_MS = 5_000;
const ERROR_CODES = new Set([
  'BadRequest',
  'InvalidId',
  'Unauthorized',
  'Forbidden',
  'AccountNotApproved',
  'InsufficientScope',
  'PaymentsDisabled',
  'NotFound',
  'NotImplemented',
  'Conflict',
  'IdempotencyConflict',
  'IdempotencyKeyReused',
  'PayloadTooLarge',
  'ValidationError',
  'RateLimited',
  'Unavailable',
]);

interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  pathParams: string[];
  query: string[];
  body: string[];
  /** Its success answer is a text/event-stream that stays open. */
  stream?: boolean;
}

const HIDDEN: Route[] = [
  ['GET', '/pay/{id}'],
  ['POST', '/pay/{id}/start'],
  ['POST', '/pay/{id}/cancel'],
  ['GET', '/pay/assets/{file}'],
  ['GET', '/link/{id}'],
  ['POST', '/link/{id}/pay'],
  ['POST', '/providers/{provider}/callbacks'],
].map(([method, path]) => ({
  method: method as Route['method'],
  path: path!,
  pathParams: [...path!.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
  query: [],
  body: ['country', 'countryCode', 'payment_method', 'outcome', 'id', 'type'],
}));

type OpenApi = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string }[];
        requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
        responses?: Record<string, { content?: Record<string, unknown> }>;
      }
    >
  >;
};

function routesOf(doc: OpenApi): Route[] {
  const routes: Route[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const params = op.parameters ?? [];
      routes.push({
        method: method.toUpperCase() as Route['method'],
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => p.name),
        body: Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
        stream: op.responses?.['200']?.content?.['text/event-stream'] !== undefined,
      });
    }
  }
  return routes;
}

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const SITE = 'https://fuzz-shop.example';
// A valid body per route: most fuzzed bodies are one of these with one field replaced, so that the
// odd value gets past the schema's other checks to the code (and the database) behind it.
const EXAMPLES: Record<string, Record<string, unknown>> = {
  'POST /admin/v1/merchants': { name: 'Fuzz Shop', wallets: [{ asset: 'USDC', network: 'polygon', address: WALLET }] },
  'PUT /admin/v1/merchants/{id}/wallets': { asset: 'USDC', network: 'polygon', address: WALLET },
  'POST /admin/v1/merchants/{id}/webhook-endpoints': { url: 'https://hooks.example/x' },
  'POST /admin/v1/merchants/{id}/api-keys': { scopes: ['transactions:read'] },
  'PUT /admin/v1/settings/payments': { enabled: true },
  'POST /api/v1/checkout/sessions': {
    amount: 25,
    currency: 'USD',
    countryCode: 'US',
    orderId: 'o-1',
    customerEmail: 'a@b.example',
    metadata: { k: 'v' },
  },
  'POST /api/v1/payment-links': { amount: 10, currency: 'USD', description: 'A thing', merchantOrderId: 'm-1' },
  'POST /api/v1/plugin/connect': {
    merchant_id: 'MER_0000000000000000',
    api_key: 'svc_live_x',
    security_code: 'AAAAAA-BBBBBB-CCCCCC-DDDDDD',
    platform: 'custom',
    site_url: SITE,
    callback_url: `${SITE}/cb`,
    plugin_version: '1.1.0',
  },
  'POST /api/v1/checkout-sessions': {
    order_id: 'o-1',
    store_url: SITE,
    amount: 5,
    currency: 'USD',
    country_code: 'US',
    customer_email: 'a@b.example',
  },
  'POST /api/checkout': {
    fiat_amount: 25,
    fiat_currency: 'EUR',
    external_reference: 'r-1',
    customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
  },
};

// --- arbitraries --------------------------------------------------------------------------------

const codeUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 24 }).map((a) => String.fromCharCode(...a));
const plausible = fc.constantFrom(
  'USD',
  'usd',
  'EUR',
  'US',
  'DE',
  'USDC',
  'polygon',
  'POLYGON',
  'card',
  'crypto',
  'custom',
  'succeeded',
  '1.1.0',
  '25',
  '0',
  '-1',
  '1e309',
  'NaN',
  'https://shop.example/cb',
  'http://127.0.0.1:1/x',
  'https://[::7f00:1]/',
  'a@b.example',
  '0x52908400098527886E0F7030069857D2E4169EE7',
  `SV_${'a'.repeat(24)}`,
  `plink_${'b'.repeat(24)}`,
  'MER_0000000000000000',
  '6f1c2a58-0d8e-4f0e-9f55-3c2f3b7a1e01',
  '__proto__',
  'constructor',
  'toString',
  '',
);
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 3, arbitrary: plausible },
  { weight: 2, arbitrary: codeUnits },
  { weight: 2, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}\u0000${b}`) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 3000 }) },
);
const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const value = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(text, scalar, { maxKeys: 4 }) },
);

/** Percent-encodes what encodeURIComponent can; lone surrogates go in raw, as a client could send. */
function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s;
  }
}
const rawBad = fc.constantFrom('%FF', '%E0%A4%A', '%', '%00', '%C3%28', '..%2F..', '%ED%A0%80');
const segment = (knownIds: string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: text.map(encode) },
    { weight: 1, arbitrary: rawBad },
    { weight: 3, arbitrary: fc.constantFrom(...knownIds) },
  );

const bodyOf = (keys: string[], example: Record<string, unknown> = {}) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...new Set([...Object.keys(example), ...keys, 'unknown_field'])), value)
        .map(([key, v]) => JSON.stringify({ ...example, [key]: v })),
    },
    {
      weight: 3,
      arbitrary: fc.record(Object.fromEntries(keys.map((k) => [k, value])), { requiredKeys: [] }).map((b) => JSON.stringify(b)),
    },
    { weight: 1, arbitrary: value.map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 64 })
        .map((bytes) => Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')])),
    },
    { weight: 1, arbitrary: fc.constantFrom('{"a":', '', 'null', '[]', '{"__proto__":{"x":1}}', `{"a":"${'x'.repeat(70_000)}"}`) },
  );

const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });

function requestOf(route: Route, auth: { apiKey: string; merchantId: string }) {
  return fc.record({
    params: fc.tuple(...route.pathParams.map(() => segment([auth.merchantId, 'sandbox', 'checkout.css']))),
    query: fc.oneof(
      fc.dictionary(fc.constantFrom(...route.query, 'x'), text, { maxKeys: 3 }).map((q) =>
        Object.entries(q)
          .map(([k, v]) => `${k}=${encode(v)}`)
          .join('&'),
      ),
      rawBad.map((b) => `${route.query[0] ?? 'x'}=${b}`),
    ),
    body: bodyOf(route.body, EXAMPLES[`${route.method} ${route.path}`]),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', undefined),
      },
    ),
    // Mostly the credential the route takes, so that the fuzzed input reaches the code behind it.
    authorization: fc.oneof(
      { weight: 6, arbitrary: fc.constant(`Bearer ${route.path.startsWith('/admin/') ? ADMIN_TOKEN : auth.apiKey}`) },
      { weight: 1, arbitrary: fc.constantFrom(undefined, `Bearer ${auth.apiKey}`, `Bearer ${ADMIN_TOKEN}`) },
      { weight: 1, arbitrary: ascii },
    ),
    idempotencyKey: fc.option(ascii, { nil: undefined }),
  });
}

/**
 * A stream route's valid request opens a stream that never ends: its answer is taken when the
 * head is written, and an open stream is then closed as a client going away would.
 */
async function injectStream(request: InjectOptions): Promise<Injected> {
  const res = await ctx.app.inject({ ...request, payloadAsStream: true });
  if (String(res.headers['content-type']).startsWith('text/event-stream')) {
    res.raw.res.req.destroy();
    res.raw.res.destroy();
    return { statusCode: res.statusCode, headers: res.headers, body: '' };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of res.stream()) chunks.push(Buffer.from(chunk as Uint8Array));
  return { statusCode: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') };
}

// --- the check ----------------------------------------------------------------------------------

type Injected = { statusCode: number; headers: Record<string, unknown>; body: string };

function checkAnswer(method: string, url: string, res: Injected): void {
  const where = `${method} ${url.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, where).toBeLessThan(500);
  const requestId = res.headers['x-request-id'];
  expect(requestId, where).toEqual(expect.any(String));
  if (res.statusCode < 400) return;
  const path = url.split('?')[0]!;
  if (String(res.headers['content-type']).startsWith('text/html')) {
    expect(/^\/(pay|link)\//.test(path), `HTML error outside the hosted pages: ${where}`).toBe(true);
    return;
  }
  const body = JSON.parse(res.body) as Record<string, unknown>;
  const simple = path.startsWith('/api/') && !path.startsWith('/api/v1/');
  if (simple) {
    expect(Object.keys(body).sort(), where).toEqual(['error', 'message', 'status']);
    expect(body.status, where).toBe('error');
  } else {
    expect(body, where).toMatchObject({ ok: false, requestId });
  }
  expect(ERROR_CODES.has(String(body.error)), where).toBe(true);
  expect(body.message, where).toEqual(expect.any(String));
}

describe('fuzzing every route', () => {
  it('never answers 5xx and always answers errors in the envelope with x-request-id', { timeout: 240_000 }, async () => {
    const merchant = await createApprovedMerchant(ctx.app);
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<OpenApi>();
    const routes = [...routesOf(doc), ...HIDDEN];
    expect(routes.length).toBeGreaterThan(25);
    let requests = 0;
    for (const route of routes) {
      // A route's time is bounded by a deadline checked between requests, not by fast-check's
      // interruptAfterTimeLimit: that one races the request in flight, so a route whose first
      // request is slow under load ends after 0 runs, which fast-check reports as a failure.
      const deadline = Date.now() + TIME_PER_ROUTE_MS;
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(requestOf(route, { apiKey: merchant.apiKey, merchantId: merchant.id }), async (r) => {
          if (runs > 0 && Date.now() > deadline) return;
          runs++;
          let i = 0;
          const path = route.path.replace(/\{\w+\}/g, () => r.params[i++] ?? 'x');
          const url = r.query ? `${path}?${r.query}` : path;
          const headers: Record<string, string> = {};
          if (r.authorization !== undefined) headers.authorization = r.authorization;
          if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
          const withBody = route.method !== 'GET' && route.method !== 'DELETE';
          if (withBody && r.contentType) headers['content-type'] = r.contentType;
          const request: InjectOptions = { method: route.method, url, headers, ...(withBody ? { payload: r.body } : {}) };
          const res = route.stream ? await injectStream(request) : await ctx.app.inject(request);
          requests++;
          checkAnswer(route.method, url, res);
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
    }
    // Bounded in time, but not so bounded that it tests nothing.
    expect(requests).toBeGreaterThan(routes.length * 20);
    console.log(`fuzz: ${requests} requests over ${routes.length} routes`);
  });
});
