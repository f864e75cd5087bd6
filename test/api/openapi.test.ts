import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { paymentEventSchema, paymentExceptionEventSchema, transactionSettledSchema } from '../../src/api/webhook-schemas';
import { exceptionEventBody } from '../../src/domain/exceptions';
import { paymentEventBody, settledWebhookBody } from '../../src/domain/webhook-event';
import { createApprovedMerchant, useTestApp } from '../support/harness';

// The document merchants and client generators read: valid OpenAPI 3.1, every operation named and
// with its error answers in the envelope, statuses the routes really answer, the webhook payloads.
const ctx = useTestApp();
type Op = { operationId?: string; security?: unknown[]; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> };
let doc: { openapi: string; paths: Record<string, Record<string, Op>>; webhooks: Record<string, unknown> };
const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

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
        expect(response.content['application/json'].schema.$ref, `${path} ${status}`).toBe(`#/components/schemas/${simple ? 'SimpleError' : 'Error'}`);
      }
    }
    expect(doc.paths['/api/v1/transactions/{id}']!.get!.operationId).toBe('getTransaction');
  });

  it('puts the admin token on every admin route and the API key on the merchant routes', () => {
    for (const { path, op } of operations()) {
      if (path.startsWith('/admin/')) expect(op.security, path).toEqual([{ adminToken: [] }]);
    }
    expect(doc.paths['/api/v1/checkout/sessions']!.post!.security).toEqual([{ apiKey: [] }]);
  });

  it('documents the statuses the routes answer: 404 for the routes not implemented, 201 for the simple checkout', async () => {
    expect(Object.keys(doc.paths['/api/v1/payments']!.get!.responses)).not.toContain('200');
    const m = await createApprovedMerchant(ctx.app);
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/payments', headers: { authorization: `Bearer ${m.apiKey}` } });
    expect(Object.keys(doc.paths['/api/v1/payments']!.get!.responses)).toContain(String(res.statusCode));
    expect(Object.keys(doc.paths['/api/checkout']!.post!.responses)).toContain('201');
    expect(Object.keys(doc.paths['/api/checkout']!.post!.responses)).not.toContain('200');
  });

  it('describes the webhook payloads, and what we send matches them', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(['payment.event', 'payment.exception', 'transaction.settled']);
    const exception = exceptionEventBody({
      eventId: 'evt_2', merchantId: 'MER_1', paymentId: 'SV_1', orderId: null, destinationAsset: 'USDC', network: 'polygon', createdAt: new Date(),
      exception: { id: 'exc_1', kind: 'late', status: 'open', amount: '25.000000', references: { transactionHash: '0xab' }, createdAt: new Date().toISOString(), resolvedAt: null },
    });
    expect(paymentExceptionEventSchema.strict().safeParse(exception).success).toBe(true);
    const body = paymentEventBody({
      eventId: 'evt_1', status: 'completed', merchantId: 'MER_1', paymentId: 'SV_1', provider: 'sandbox', providerPaymentId: 'p1', railType: 'fiat_to_crypto',
      amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', orderId: null,
      createdAt: new Date(),
      settlement: { grossAmount: '24.500000', merchantSettlementAmount: '24.255000', platformCommissionAmount: '0.245000', transactionHash: null, explorerUrl: null },
    });
    expect(paymentEventSchema.strict().safeParse(body).success).toBe(true);
    const settled = settledWebhookBody(
      { transactionCode: 'c', externalReference: null, fiatAmountMinor: 2500n, fiatCurrency: 'EUR', receivedMicro: 27_000_000n, walletAddress: 'w', walletCurrency: 'USDC', walletNetwork: 'polygon', payoutDispatched: true },
      new Date(),
    );
    expect(transactionSettledSchema.strict().safeParse(settled).success).toBe(true);
  });
});
