import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { paymentSessionSchema, transactionSchema } from '../../src/api/checkout/views';
import { exceptionSchema } from '../../src/api/exceptions/views';
import { compileResponseSerializer, createResponseSerializerCompiler } from '../../src/api/response-serializer';

// src/api/response-serializer.ts: answers written by fast-json-stringify from the zod schema must be
// the text zod's parse then JSON.stringify wrote, and carry nothing the schema leaves out.
const checked = (schema: z.ZodType) => (data: unknown) => JSON.stringify(schema.parse(data));
const compile = (schema: z.ZodType, crossCheck = false) =>
  createResponseSerializerCompiler({ crossCheck })({ schema, method: 'GET', url: '/x', httpStatus: '200' });

// Any text: quotes, backslashes, control characters, astral characters and lone surrogates.
const text = fc.string({ unit: 'binary', maxLength: 40 });
const nullableText = fc.option(text, { nil: null });
const lookup = z.object({ ok: z.literal(true), paymentSession: paymentSessionSchema.extend({ exceptions: z.array(exceptionSchema) }) });
const session = fc.record({
  id: text,
  checkoutUrl: text,
  status: fc.constantFrom('pending', 'processing', 'completed', 'failed', 'expired', 'canceled'),
  cancelReason: fc.constantFrom(null, 'customer', 'link_paid'),
  amount: text,
  currency: text,
  destinationAsset: fc.constant('USDC'),
  network: fc.constant('polygon'),
  orderId: nullableText,
  merchantOrderId: nullableText,
  provider: nullableText,
  providerPaymentId: nullableText,
  railType: fc.constant('fiat_to_crypto'),
  mode: fc.constant('live'),
  countryCode: text,
  customerEmail: nullableText,
  // What a merchant may store: strings, numbers, booleans and null, nested as JSON allows.
  metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })),
  createdAt: text,
  expiresAt: text,
  completedAt: nullableText,
  exceptions: fc.constant([]),
});

describe('response serializer', () => {
  it('writes what the checked serializer writes, for any text and metadata', () => {
    const fast = compileResponseSerializer(lookup)!;
    expect(fast).toBeDefined();
    fc.assert(
      fc.property(session, (paymentSession) => {
        const data = { ok: true, paymentSession };
        expect(fast(data)).toBe(checked(lookup)(data));
      }),
      { numRuns: 300 },
    );
  });

  it('writes nothing its schema leaves out', () => {
    const schema = z.object({ ok: z.literal(true), merchant: z.object({ id: z.string(), name: z.string() }) });
    const written = compile(schema)({ ok: true, merchant: { id: 'MER_1', name: 'Shop', webhookSecret: 'whsec_leak' }, extra: 1 });
    expect(JSON.parse(written)).toEqual({ ok: true, merchant: { id: 'MER_1', name: 'Shop' } });
  });

  it('answers through the checked serializer where JSON Schema cannot say the schema (a transform)', () => {
    const schema = z.object({ amount: z.bigint().transform(String) });
    expect(compileResponseSerializer(schema)).toBeUndefined();
    expect(compile(schema)({ amount: 5n })).toBe('{"amount":"5"}');
    expect(() => compile(schema)({ amount: 'five' })).toThrow();
  });

  it('with crossCheck, fails an answer the two would write differently', () => {
    const schema = z.object({ status: z.enum(['pending', 'completed']) });
    // fast-json-stringify writes any string; zod refuses one outside the enum.
    expect(compile(schema)({ status: 'lost' })).toBe('{"status":"lost"}');
    expect(() => compile(schema, true)({ status: 'lost' })).toThrow();
    expect(compile(schema, true)({ status: 'pending' })).toBe('{"status":"pending"}');
  });

  it('writes a transaction as the checked serializer does', () => {
    const schema = z.object({ ok: z.literal(true), transaction: transactionSchema });
    const transaction = {
      id: 'SV_1',
      paymentSessionId: 'SV_1',
      status: 'completed',
      sourceAmount: '25.00',
      sourceCurrency: 'USD',
      destinationAsset: 'USDC',
      network: 'polygon',
      walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      grossAmount: '25.000000',
      merchantSettlementAmount: '24.750000',
      platformCommissionAmount: '0.250000',
      commissionBps: 100,
      provider: null,
      railType: 'crypto_transfer',
      providerPaymentId: null,
      providerEventId: null,
      transactionHash: null,
      explorerUrl: null,
      payoutId: null,
      depositTransactionHash: '0xabc',
      failureReason: null,
      completedAt: '2026-11-30T10:00:00.000Z',
      verification: 'chain',
    };
    expect(compile(schema, true)({ ok: true, transaction })).toBe(checked(schema)({ ok: true, transaction }));
  });
});
