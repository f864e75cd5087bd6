import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../domain/errors';

const notImplemented = z.object({ ok: z.literal(false), error: z.literal('NotImplemented'), message: z.string(), requestId: z.string() });

// Spec rule 1.5 and §4.8: both are documented as not implemented, and say where to look instead.
const notImplementedRoutes: FastifyPluginAsyncZod = async (app) => {
  // Documented with the one answer they give: 404 NotImplemented (added by openapi.ts with the envelope).
  app.get('/payments', { schema: { tags: ['merchant'], summary: 'Not implemented: use GET /transactions/{id}', response: { 404: notImplemented } } }, async () => {
    throw new AppError(
      'NotImplemented',
      'GET /payments is not implemented. Look up each payment with GET /api/v1/transactions/{id}.',
    );
  });
  app.get(
    '/settlements/:id',
    {
      schema: {
        tags: ['merchant'],
        summary: 'Not implemented: use GET /transactions/{id}',
        params: z.object({ id: z.string() }),
        response: { 404: notImplemented },
      },
    },
    async () => {
      throw new AppError(
        'NotImplemented',
        'GET /settlements/{id} is not implemented yet. Settlement fields (merchantSettlementAmount, platformCommissionAmount, transactionHash, explorerUrl) are on GET /api/v1/transactions/{id}.',
      );
    },
  );
};

export default notImplementedRoutes;
