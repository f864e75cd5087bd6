import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  paymentEventSchema,
  paymentExceptionEventSchema,
  paymentRefundedEventSchema,
  transactionSettledSchema,
} from '../../src/api/webhook-schemas';
import { exceptionEventBody, refundEventBody } from '../../src/domain/exceptions';
import { paymentEventBody, settledWebhookBody } from '../../src/domain/webhook-event';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';

// The document merchants and client generators read: valid OpenAPI 3.1, every operation named and
// with its error answers in the envelope, statuses the routes really answer, the webhook payloads.
const ctx = useTestApp();
type Op = {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
};
let doc: { openapi: string; paths: Record<string, Record<string, Op>>; webhooks: Record<string, unknown> };
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('names every operation once, and gives each its error answers in the envelope of its API', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, op } of operations()) {
      if (path === '/healthz') continue;
      const errors = Object.entries(op.responses).filter(([status]) => Number(status) >= 400);
      expect(errors.length, `${path} documents its errors`).toBeGreaterThan(0);
      const simple = path.startsWith('/api/') && !path.startsWith('/api/v1/');
      for (const [status, response] of errors) {
        if (response.content?.['application/json']?.schema.$ref === undefined) continue;
        expect(response.content['application/json'].schema.$ref, `${path} ${status}`).toBe(
          `#/components/schemas/${simple ? 'SimpleError' : 'Error'}`,
        );
      }
    }
    expect(doc.paths['/api/v1/transactions/{id}']!.get!.operationId).toBe('getTransaction');
  });

  it('puts the admin token on every admin route and the API key on the merchant routes', () => {
    for (const { path, op } of operations()) {
      if (path.startsWith('/admin/')) expect(op.security, path).toEqual([{ adminToken: [] }]);
    }
    expect(doc.paths['/api/v1/checkout/sessions']!.post!.security).toEqual([{ apiKey: [] }]);
    for (const path of ['/api/v1/balance', '/api/v1/settlements', '/api/v1/settlements/{id}']) {
      expect(doc.paths[path]!.get!.security, path).toEqual([{ apiKey: [] }]);
    }
  });

  it('documents the settlement reads: an id of neither shape is the 404 of an unknown one, never 400 InvalidId', () => {
    const ids = ['/api/v1/balance', '/api/v1/settlements', '/api/v1/settlements/{id}'].map((path) => doc.paths[path]!.get!.operationId);
    expect(ids).toEqual(['getBalance', 'listSettlements', 'getSettlement']);
    type Examples = Record<string, { value: { error: string; message: string } }>;
    const examples = (path: string, status: string) =>
      (doc.paths[path]!.get!.responses[status]!.content!['application/json'] as unknown as { examples: Examples }).examples;
    expect(Object.values(examples('/api/v1/settlements/{id}', '404')).map((e) => e.value.message)).toEqual(['Settlement not found.']);
    expect(Object.keys(examples('/api/v1/settlements/{id}', '400'))).not.toContain('InvalidId');
    expect(Object.keys(examples('/api/v1/transactions/{id}', '400'))).toContain('InvalidId');
    expect(doc.paths['/api/v1/settlements']!.get!.responses['404']).toBeUndefined();
  });

  it('documents the statuses the routes answer: the route not implemented only in the description, 201 for the simple checkout', async () => {
    expect(doc.paths['/api/v1/payments']).toBeUndefined();
    const description = (doc as unknown as { info: { description: string } }).info.description;
    expect(description).toContain('GET /api/v1/payments is not implemented (404 NotImplemented)');
    expect(description).not.toContain('settlements');
    const m = await createApprovedMerchant(ctx.app);
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/payments', headers: { authorization: `Bearer ${m.apiKey}` } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ ok: false, error: 'NotImplemented' });
    expect(Object.keys(doc.paths['/api/checkout']!.post!.responses)).toContain('201');
    expect(Object.keys(doc.paths['/api/checkout']!.post!.responses)).not.toContain('200');
  });

  it('describes the webhook payloads, and what we send matches them', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'payment.event',
      'payment.exception',
      'payment.refunded',
      'transaction.settled',
      'webhook.test',
    ]);
    const input = {
      eventId: 'evt_2',
      merchantId: 'MER_1',
      paymentId: 'SV_1',
      orderId: null,
      destinationAsset: 'USDC',
      network: 'polygon',
      createdAt: new Date(),
      exception: {
        id: 'exc_1',
        kind: 'late' as const,
        status: 'open' as const,
        amount: '25.000000',
        references: { transactionHash: '0xab' },
        createdAt: new Date().toISOString(),
        resolvedAt: null,
      },
    };
    expect(paymentExceptionEventSchema.strict().safeParse(exceptionEventBody(input)).success).toBe(true);
    const refunded = refundEventBody({
      ...input,
      exception: { ...input.exception, status: 'refunded' as const, resolvedAt: new Date().toISOString() },
      refund: { address: '0x52908400098527886E0F7030069857D2E4169EE7', amount: '25.000000', transactionHash: '0xcd', explorerUrl: null },
    });
    expect(paymentRefundedEventSchema.strict().safeParse(refunded).success).toBe(true);
    const body = paymentEventBody({
      eventId: 'evt_1',
      status: 'completed',
      merchantId: 'MER_1',
      paymentId: 'SV_1',
      provider: 'sandbox',
      providerPaymentId: 'p1',
      railType: 'fiat_to_crypto',
      amount: '25.00',
      currency: 'USD',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      orderId: null,
      createdAt: new Date(),
      settlement: {
        grossAmount: '24.500000',
        merchantSettlementAmount: '24.255000',
        platformCommissionAmount: '0.245000',
        transactionHash: null,
        explorerUrl: null,
      },
    });
    expect(paymentEventSchema.strict().safeParse(body).success).toBe(true);
    const settled = settledWebhookBody(
      {
        transactionCode: 'c',
        externalReference: null,
        fiatAmountMinor: 2500n,
        fiatCurrency: 'EUR',
        receivedMicro: 27_000_000n,
        walletAddress: 'w',
        walletCurrency: 'USDC',
        walletNetwork: 'polygon',
        payoutDispatched: true,
      },
      new Date(),
    );
    expect(transactionSettledSchema.strict().safeParse(settled).success).toBe(true);
  });
});

// Every operation, probed three ways: without credentials, with credentials and a body the API
// must refuse, and (where documented) with a body over the limit. Whatever it answers must be a
// status the document lists for it; the documented 401, 413 and 422 are each seen for real.
describe('the documented statuses, against what the routes answer', () => {
  it('lists every status each operation answers to probes, and each probe-able documented error is answered', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const undocumented: string[] = [];
    const seen = { 401: 0, 413: 0, 422: 0 };
    for (const { path, method, op } of operations()) {
      const url = path.replace(/\{[^}]+\}/g, 'probe0000000000000000');
      const documented = Object.keys(op.responses);
      const credentials = path.startsWith('/admin/') ? adminHeaders : op.security?.length ? { authorization: `Bearer ${m.apiKey}` } : {};
      const hasBody = method !== 'get' && method !== 'delete';
      const probes: { name: string; headers: Record<string, string>; payload?: string }[] = [
        { name: 'anonymous', headers: hasBody ? { 'content-type': 'application/json' } : {}, ...(hasBody ? { payload: '{}' } : {}) },
        {
          name: 'refused body',
          // `last-event-id` is read by the events stream only, which refuses this one (422) rather than stream forever.
          headers: { ...credentials, 'last-event-id': 'probe', ...(hasBody ? { 'content-type': 'application/json' } : {}) },
          ...(hasBody ? { payload: '{"probeUnknownField":true}' } : {}),
        },
      ];
      if (documented.includes('413'))
        probes.push({
          name: 'oversized',
          headers: { ...credentials, 'content-type': 'application/json' },
          payload: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }),
        });
      for (const probe of probes) {
        const res = await ctx.app.inject({
          method: method.toUpperCase() as 'GET',
          url,
          headers: probe.headers,
          ...(probe.payload !== undefined ? { payload: probe.payload } : {}),
        });
        if (!documented.includes(String(res.statusCode)))
          undocumented.push(
            `${method.toUpperCase()} ${path} (${probe.name}) answered ${res.statusCode}, documented ${documented.join(',')}`,
          );
        if (res.statusCode in seen && documented.includes(String(res.statusCode))) seen[res.statusCode as keyof typeof seen]++;
      }
    }
    expect(undocumented).toEqual([]);
    expect(seen[401]).toBeGreaterThan(10);
    expect(seen[413]).toBeGreaterThan(3);
    expect(seen[422]).toBeGreaterThan(3);
  }, 120_000);

  it('describes the fields of the checkout session, with examples, for client generators', () => {
    type Schema = { properties?: Record<string, { description?: string; examples?: unknown[] }>; examples?: unknown[] };
    const create = doc.paths['/api/v1/checkout/sessions']!.post! as unknown as {
      requestBody: { content: { 'application/json': { schema: Schema; examples?: Record<string, unknown>; example?: unknown } } };
      responses: Record<string, { content: { 'application/json': { schema: { properties: { checkoutSession: Schema } } } } }>;
    };
    const body = create.requestBody.content['application/json'].schema;
    // @fastify/swagger moves a body's examples up to its media type.
    const media = create.requestBody.content['application/json'];
    expect(body.examples?.length ?? Object.keys(media.examples ?? {}).length + (media.example ? 1 : 0)).toBeGreaterThan(0);
    for (const [field, schema] of Object.entries(body.properties!)) {
      expect(schema.description, `${field} is described`).toBeTruthy();
      expect(schema.examples?.length, `${field} has an example`).toBeGreaterThan(0);
    }
    expect(Object.keys(body.properties!)).toContain('locale');
    const session = create.responses['201']!.content['application/json'].schema.properties.checkoutSession;
    for (const field of ['id', 'checkoutUrl', 'status', 'amount', 'expiresAt'])
      expect(session.properties![field]!.description, field).toBeTruthy();
    const expire = doc.paths['/api/v1/checkout/sessions/{id}/expire']!.post!;
    expect(expire.operationId).toBe('expireCheckoutSession');
    expect(expire.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(expire.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '409']));
  });
});
