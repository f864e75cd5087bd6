import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app';
import { createDb } from '../../src/db/client';
import { createProviders } from '../../src/providers';
import { createTemporalClient } from '../../src/temporal/client';
import { MerchantIdKey, OrderIdKey, PaymentStatusKey, ProviderKey } from '../../src/workflows/search-attributes';
import { adminHeaders, createApprovedMerchant, testConfig, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { startSilentServer } from '../support/tcp-proxy';

const ctx = useTestApp();

const create = (apiKey: string, payload: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${apiKey}`, ...headers },
    payload: payload as object,
  });

const sessionCount = async () => (await ctx.db.sql`select count(*)::int as n from checkout_sessions`)[0]!.n as number;

describe('POST /api/v1/checkout/sessions', () => {
  it('creates a session and its workflow, with every field of a session', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const before = Date.now();
    const res = await create(m.apiKey, {
      amount: 25,
      currency: 'usd',
      countryCode: 'us',
      orderId: 'order-1001',
      customerEmail: 'a@b.example',
    });
    expect(res.statusCode).toBe(201);
    const { ok, checkoutSession: s } = res.json();
    expect(ok).toBe(true);
    expect(s).toMatchObject({
      status: 'pending',
      amount: '25.00',
      currency: 'USD',
      destinationAsset: 'USDC',
      network: 'polygon',
      mode: 'live',
      provider: 'sandbox',
      railType: 'fiat_to_crypto',
      orderId: 'order-1001',
    });
    expect(s.id).toMatch(/^SV_[0-9A-Za-z]{24}$/);
    expect(s.externalSessionId).toBe(s.id);
    expect(s.checkoutUrl).toBe(`${ctx.config.http.publicBaseUrl}/pay/${s.id}`);
    const ttl = new Date(s.expiresAt).getTime() - new Date(s.createdAt).getTime();
    expect(ttl).toBeGreaterThan(24 * 3600_000 - 5000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600_000 + 5000);
    expect(new Date(s.createdAt).getTime()).toBeGreaterThanOrEqual(before - 5000);

    const workflow = await ctx.temporal.workflow.getHandle(s.id).describe();
    expect(workflow.type).toBe('checkoutSession');
    expect(workflow.status.name).toBe('RUNNING');
    expect(workflow.typedSearchAttributes.get(MerchantIdKey)).toBe(m.id);
    expect(workflow.typedSearchAttributes.get(OrderIdKey)).toBe('order-1001');
    expect(workflow.typedSearchAttributes.get(PaymentStatusKey)).toBe('pending');
    expect(workflow.typedSearchAttributes.get(ProviderKey)).toBe('sandbox');
  });

  it('formats JPY without decimals and keeps orderId and merchantOrderId apart', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await create(m.apiKey, { amount: 1500, currency: 'JPY', countryCode: 'JP', merchantOrderId: 'inv-7' });
    expect(res.statusCode).toBe(201);
    expect(res.json().checkoutSession).toMatchObject({ amount: '1500', currency: 'JPY', orderId: 'inv-7' });
    const [row] = await ctx.db
      .sql`select order_id, merchant_order_id, amount_minor from checkout_sessions where id = ${res.json().checkoutSession.id}`;
    expect(row).toMatchObject({ order_id: null, merchant_order_id: 'inv-7', amount_minor: '1500' });
  });

  it.each([
    [{ currency: 'USD', countryCode: 'US' }, 'amount'],
    [{ amount: 10, countryCode: 'US' }, 'currency'],
    [{ amount: 10, currency: 'USD' }, 'countryCode'],
    [{ amount: 19.999, currency: 'USD', countryCode: 'US' }, 'amount'],
    [{ amount: 10.5, currency: 'JPY', countryCode: 'JP' }, 'amount'],
    [{ amount: 0.5, currency: 'USD', countryCode: 'US' }, 'amount'],
    [{ amount: 1_000_000.01, currency: 'USD', countryCode: 'US' }, 'amount'],
    [{ amount: -5, currency: 'USD', countryCode: 'US' }, 'amount'],
    [{ amount: '10', currency: 'USD', countryCode: 'US' }, 'amount'],
    [{ amount: 10, currency: 'XYZ', countryCode: 'US' }, 'currency'],
    [{ amount: 10, currency: 'USD', countryCode: 'USA' }, 'countryCode'],
    [{ amount: 10, currency: 'USD', countryCode: 'KP' }, 'countryCode'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', destinationAsset: 'USDT', network: 'base' }, 'network'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', destinationAsset: 'USDC', network: 'ethereum' }, 'network'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', customerEmail: 'not-an-email' }, 'customerEmail'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', orderId: 'x'.repeat(201) }, 'orderId'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', successUrl: 'ftp://shop.example/ok' }, 'successUrl'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', cancelUrl: '/relative' }, 'cancelUrl'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', webhookUrl: `https://x.example/${'a'.repeat(2050)}` }, 'webhookUrl'],
    [
      {
        amount: 10,
        currency: 'USD',
        countryCode: 'US',
        metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
      },
      'metadata',
    ],
    [{ amount: 10, currency: 'USD', countryCode: 'US', metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', metadata: { note: 'v'.repeat(501) } }, 'metadata.note'],
    [{ amount: 10, currency: 'USD', countryCode: 'US', surprise: true }, 'surprise'],
  ])('refuses %o with 422 naming %s and creates nothing', async (payload, path) => {
    const m = await createApprovedMerchant(ctx.app);
    const before = await sessionCount();
    const res = await create(m.apiKey, payload);
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body).toMatchObject({ ok: false, error: 'ValidationError' });
    expect(body.details.map((d: { path: string }) => d.path).some((p: string) => p === path || p.startsWith(`${path}.`))).toBe(true);
    expect(await sessionCount()).toBe(before);
  });

  it('accepts USDT on tron when the merchant has a tron wallet', async () => {
    const m = await createApprovedMerchant(ctx.app, {
      wallets: [{ asset: 'USDT', network: 'tron', address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' }],
    });
    const res = await create(m.apiKey, { amount: 99.9, currency: 'EUR', countryCode: 'DE', destinationAsset: 'usdt', network: 'TRON' });
    expect(res.statusCode).toBe(201);
    expect(res.json().checkoutSession).toMatchObject({ amount: '99.90', destinationAsset: 'USDT', network: 'tron' });
  });

  it('needs a key with checkout_sessions:create', async () => {
    const m = await createApprovedMerchant(ctx.app);
    expect(
      (
        await ctx.app.inject({
          method: 'POST',
          url: '/api/v1/checkout/sessions',
          payload: { amount: 1, currency: 'USD', countryCode: 'US' },
        })
      ).statusCode,
    ).toBe(401);
    const reader = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['transactions:read'] },
    });
    const res = await create(reader.json().apiKey, { amount: 10, currency: 'USD', countryCode: 'US' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('InsufficientScope');
  });

  it('refuses new sessions with 403 PaymentsDisabled while the kill switch is off', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: false } });
    try {
      const before = await sessionCount();
      const res = await create(m.apiKey, { amount: 10, currency: 'USD', countryCode: 'US' });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('PaymentsDisabled');
      expect(await sessionCount()).toBe(before);
    } finally {
      await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: true } });
    }
    expect((await create(m.apiKey, { amount: 10, currency: 'USD', countryCode: 'US' })).statusCode).toBe(201);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, and creates one session', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const body = { amount: 42, currency: 'USD', countryCode: 'US', orderId: 'idem-1' };
    const first = await create(m.apiKey, body, { 'idempotency-key': 'key-abc' });
    const second = await create(
      m.apiKey,
      { orderId: 'idem-1', countryCode: 'US', currency: 'USD', amount: 42 },
      { 'idempotency-key': 'key-abc' },
    );
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['idempotent-replayed']).toBe('true');
    const rows = await ctx.db.sql`select id from checkout_sessions where merchant_id = ${m.id}`;
    expect(rows).toHaveLength(1);
  });

  it('answers 409 IdempotencyConflict for the same key with another body', async () => {
    const m = await createApprovedMerchant(ctx.app);
    await create(m.apiKey, { amount: 10, currency: 'USD', countryCode: 'US' }, { 'idempotency-key': 'key-conflict' });
    const res = await create(m.apiKey, { amount: 11, currency: 'USD', countryCode: 'US' }, { 'idempotency-key': 'key-conflict' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('IdempotencyConflict');
  });

  it('scopes keys per merchant', async () => {
    const a = await createApprovedMerchant(ctx.app);
    const b = await createApprovedMerchant(ctx.app);
    const body = { amount: 10, currency: 'USD', countryCode: 'US' };
    const ra = await create(a.apiKey, body, { 'idempotency-key': 'shared-key' });
    const rb = await create(b.apiKey, body, { 'idempotency-key': 'shared-key' });
    expect(rb.statusCode).toBe(201);
    expect(rb.json().checkoutSession.id).not.toBe(ra.json().checkoutSession.id);
  });

  it('creates exactly one session for concurrent duplicates', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const body = { amount: 77, currency: 'USD', countryCode: 'US' };
    const results = await Promise.all(Array.from({ length: 12 }, () => create(m.apiKey, body, { 'idempotency-key': 'burst' })));
    const created = results.filter((r) => r.statusCode === 201);
    const busy = results.filter((r) => r.statusCode === 409);
    expect(created.length + busy.length).toBe(12);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of busy) expect(r.json().error).toBe('Conflict');
    expect(new Set(created.map((r) => r.json().checkoutSession.id)).size).toBe(1);
    const rows = await ctx.db.sql`select id from checkout_sessions where merchant_id = ${m.id}`;
    expect(rows).toHaveLength(1);
  });

  it('refuses a key over 255 characters', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await create(m.apiKey, { amount: 10, currency: 'USD', countryCode: 'US' }, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.statusCode).toBe(422);
  });
});

describe('when Temporal is unreachable', () => {
  // A Temporal that accepts connections and never answers (a hung host, a silent partition): the
  // call's deadline, not a refused connection, ends the wait.
  let silent: Awaited<ReturnType<typeof startSilentServer>>;
  beforeAll(async () => {
    silent = await startSilentServer();
  });
  afterAll(() => silent.close());

  /** Creates one session on an app whose Temporal is at `address`; its log lines as pino wrote them. */
  async function createDuringOutage(address: string, apiKey: string, body: object, idempotencyKey: string) {
    const config = testConfig(ctx.config.databaseUrl, { TEMPORAL_ADDRESS: address, LOG_LEVEL: 'info' });
    const db = createDb(config.databaseUrl, { max: 2 });
    const temporal = createTemporalClient(config.temporal);
    const lines: { level: number; msg: string }[] = [];
    const broken = await buildApp(
      { config, db, temporal: temporal.client, providers: createProviders(config) },
      { logger: { stream: { write: (line: string) => void lines.push(JSON.parse(line)) } } },
    );
    try {
      const started = performance.now();
      const res = await broken.inject({
        method: 'POST',
        url: '/api/v1/checkout/sessions',
        headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': idempotencyKey },
        payload: body,
      });
      return { res, ms: performance.now() - started, lines };
    } finally {
      await broken.close();
      await db.close();
      await temporal.close();
    }
  }

  it.each([
    ['refuses connections', () => '127.0.0.1:1'],
    ['accepts connections and never answers', () => `127.0.0.1:${silent.port}`],
  ])(
    'that %s: 503 Unavailable within 5 s in all, logged as a warning, nothing visible, and a retry with the same key then succeeds',
    async (_, address) => {
      const m = await createApprovedMerchant(ctx.app);
      const body = { amount: 31, currency: 'USD', countryCode: 'US', orderId: 'retry-me' };
      const { res, ms, lines } = await createDuringOutage(address(), m.apiKey, body, 'outage-1');
      console.log(`create during a Temporal outage: ${res.statusCode} after ${ms.toFixed(0)} ms`);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ ok: false, error: 'Unavailable' });
      // The request's whole time, the row's clean-up included (it took 5.2–8.8 s).
      expect(ms).toBeLessThan(5000);
      // Expected during an outage: one warning, no error line (pino: 40 warn, 50 error).
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual(['request failed: a backing service is unavailable']);
      // The workflow comes first (payments/open-payment.ts): a start that failed stored nothing.
      expect(await ctx.db.sql`select id from checkout_sessions where merchant_id = ${m.id}`).toHaveLength(0);

      const retry = await create(m.apiKey, body, { 'idempotency-key': 'outage-1' });
      expect(retry.statusCode).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    },
  );
});

describe('when Postgres refuses the row after its workflow started', () => {
  // The workflow comes first, then the row (payments/open-payment.ts). A refusal (an error Postgres
  // answered, so nothing was stored) ends the run at once: no run is left waiting for a row.
  it('answers in the envelope, stores nothing and terminates the run it started', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const orderId = `refused-${Date.now()}`;
    await ctx.db.sql.unsafe(
      `create or replace function refuse_test_session() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`,
    );
    await ctx.db.sql.unsafe(
      `create trigger refuse_test_session before insert on checkout_sessions for each row when (new.order_id = '${orderId}') execute function refuse_test_session()`,
    );
    try {
      const res = await create(m.apiKey, { amount: 10, currency: 'USD', countryCode: 'US', orderId });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ ok: false, error: 'InternalError' });
      expect(await ctx.db.sql`select id from checkout_sessions where merchant_id = ${m.id}`).toHaveLength(0);
      // The run's id is in no answer: found by its merchant (visibility is eventually consistent).
      const listRuns = async () => {
        const ids: string[] = [];
        for await (const run of ctx.temporal.workflow.list({ query: `MerchantId = '${m.id}'` })) ids.push(run.workflowId);
        return ids;
      };
      const runs = await eventually(listRuns, (ids) => ids.length > 0, 10_000, 'the started run listed');
      expect(runs).toHaveLength(1);
      const described = await ctx.temporal.workflow.getHandle(runs[0]!).describe();
      expect(described.status.name).toBe('TERMINATED');
    } finally {
      await ctx.db.sql.unsafe(`drop trigger refuse_test_session on checkout_sessions`);
    }
  });
});

describe('lookups', () => {
  it('serve the public session with customer fields only, and the merchant’s own records', async () => {
    const m = await createApprovedMerchant(ctx.app, { name: 'Lookup Shop' });
    const created = await create(m.apiKey, {
      amount: 12.5,
      currency: 'GBP',
      countryCode: 'GB',
      orderId: 'o-9',
      customerEmail: 'c@d.example',
      metadata: { a: 'b' },
    });
    const id = created.json().checkoutSession.id;

    const pub = await ctx.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${id}` });
    expect(pub.statusCode).toBe(200);
    expect(pub.json()).toEqual({
      ok: true,
      id,
      status: 'pending',
      amount: '12.50',
      currency: 'GBP',
      destinationAsset: 'USDC',
      network: 'polygon',
      merchantName: 'Lookup Shop',
      expiresAt: expect.any(String),
    });
    expect(pub.body).not.toContain('c@d.example');
    expect(pub.body).not.toContain('o-9');

    const auth = { authorization: `Bearer ${m.apiKey}` };
    const ps = await ctx.app.inject({ method: 'GET', url: `/api/v1/payment-sessions/${id}`, headers: auth });
    expect(ps.statusCode).toBe(200);
    expect(ps.json().paymentSession).toMatchObject({
      id,
      checkoutUrl: `${ctx.config.http.publicBaseUrl}/pay/${id}`,
      status: 'pending',
      amount: '12.50',
      currency: 'GBP',
      orderId: 'o-9',
      provider: 'sandbox',
      railType: 'fiat_to_crypto',
      metadata: { a: 'b' },
    });

    const tx = await ctx.app.inject({ method: 'GET', url: `/api/v1/transactions/${id}`, headers: auth });
    expect(tx.statusCode).toBe(200);
    expect(tx.json().transaction).toMatchObject({
      id,
      paymentSessionId: id,
      status: 'pending',
      sourceAmount: '12.50',
      sourceCurrency: 'GBP',
      merchantSettlementAmount: null,
      platformCommissionAmount: null,
      transactionHash: null,
      completedAt: null,
    });

    const other = await createApprovedMerchant(ctx.app);
    for (const url of [`/api/v1/payment-sessions/${id}`, `/api/v1/transactions/${id}`]) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${other.apiKey}` } });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('NotFound');
    }
  });

  it.each(['1', '550e8400-e29b-41d4-a716-446655440000', 'SV_has-dash', 'sv_lower'])(
    'refuses the non-canonical id %s with 400 InvalidId',
    async (id) => {
      const m = await createApprovedMerchant(ctx.app);
      for (const url of [`/api/v1/transactions/${id}`, `/api/v1/payment-sessions/${id}`, `/api/v1/checkout/sessions/${id}`]) {
        const res = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${m.apiKey}` } });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('InvalidId');
      }
    },
  );

  it('answers 404 for a well-formed id that does not exist', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/transactions/SV_doesnotexist000000000000',
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    expect(res.statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/checkout/sessions/SV_doesnotexist000000000000' })).statusCode).toBe(404);
  });
});
