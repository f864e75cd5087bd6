import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config';
import { exceptionView } from '../../domain/exceptions';
import { exceptionSchema } from '../exceptions/views';
import { paymentSessionSchema, paymentSessionView, transactionSchema, transactionView } from '../checkout/views';
import { requireCanonicalId } from './lookup-id';

// Merchant lookups, read from Postgres. Another merchant's payment is 404, never
// 403: its existence is not revealed.
const paymentLookupRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const params = z.object({ id: z.string() });

  app.get(
    '/payment-sessions/:id',
    {
      preHandler: app.requireScope('transactions:read'),
      schema: {
        operationId: 'getPaymentSession',
        tags: ['payments'],
        summary: 'Look up one of your payment sessions',
        security: [{ apiKey: [] }],
        params,
        description:
          'exceptions: money that arrived off the happy path (late, duplicate, overpaid, underpaid, unverified), one per arrival, oldest first.',
        response: {
          200: z.object({ ok: z.literal(true), paymentSession: paymentSessionSchema.extend({ exceptions: z.array(exceptionSchema) }) }),
        },
      },
    },
    async (request) => {
      const found = await app.payments.lookups.merchantSession(request.merchant!.id, requireCanonicalId(request.params.id));
      const exceptions = found.exceptions.map(exceptionView);
      // Added to the view as it is, not spread into a copy: Node 20 spends about a microsecond
      // copying its twenty fields into a new object, a measurable part of a lookup.
      return {
        ok: true as const,
        paymentSession: Object.assign(paymentSessionView(found.session, config.http.publicBaseUrl), { exceptions }),
      };
    },
  );

  app.get(
    '/transactions/:id',
    {
      preHandler: app.requireScope('transactions:read'),
      schema: {
        operationId: 'getTransaction',
        tags: ['payments'],
        summary: 'The latest transaction of a payment, with its settlement split',
        description: 'merchantSettlementAmount + platformCommissionAmount = grossAmount exactly, for completed transactions.',
        security: [{ apiKey: [] }],
        params,
        response: { 200: z.object({ ok: z.literal(true), transaction: transactionSchema }) },
      },
    },
    async (request) => {
      const { session, transaction } = await app.payments.lookups.merchantTransaction(
        request.merchant!.id,
        requireCanonicalId(request.params.id),
      );
      return { ok: true as const, transaction: transactionView(session, transaction) };
    },
  );
};

export default paymentLookupRoutes;
