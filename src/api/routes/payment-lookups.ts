import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config';
import type { Database } from '../../db/client';
import { findVisibleSession, findVisibleSessionForLookup } from '../../db/queries/checkout-sessions';
import { listPaymentExceptions } from '../../db/queries/payment-exceptions';
import { findTransaction } from '../../db/queries/transactions';
import { exceptionView } from '../../domain/exceptions';
import { exceptionSchema } from '../exceptions/views';
import { notFound } from '../../domain/errors';
import { paymentSessionSchema, paymentSessionView, transactionSchema, transactionView } from '../checkout/views';
import { requireCanonicalId } from './lookup-id';

// Merchant lookups (spec §4.6, §4.7), read from Postgres. Another merchant's payment is 404, never
// 403: its existence is not revealed.
const paymentLookupRoutes: FastifyPluginAsyncZod<{ config: Config; db: Database }> = async (app, { config, db }) => {
  const params = z.object({ id: z.string() });

  async function ownSession(merchantId: string, rawId: string) {
    const session = await findVisibleSession(db, requireCanonicalId(rawId));
    if (!session || session.merchantId !== merchantId) throw notFound('Payment');
    return session;
  }

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
      const found = await findVisibleSessionForLookup(db, requireCanonicalId(request.params.id));
      if (!found || found.session.merchantId !== request.merchant!.id) throw notFound('Payment');
      const { session } = found;
      const exceptions = found.hasExceptions ? (await listPaymentExceptions(db, session.id)).map(exceptionView) : [];
      return { ok: true as const, paymentSession: { ...paymentSessionView(session, config.http.publicBaseUrl), exceptions } };
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
      const session = await ownSession(request.merchant!.id, request.params.id);
      return { ok: true as const, transaction: transactionView(session, await findTransaction(db, session.id)) };
    },
  );
};

export default paymentLookupRoutes;
