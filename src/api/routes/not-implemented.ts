import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../domain/errors';

const notImplemented = z.object({ ok: z.literal(false), error: z.literal('NotImplemented'), message: z.string(), requestId: z.string() });

// Spec rule 1.5 and §4.8: both answer 404 NotImplemented and say where to look instead. They are no
// operations of the API, so the OpenAPI document names them in its description rather than as paths
// (an operation with no success answer is an error under the linters' rulesets, rightly).
const notImplementedRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/payments', { schema: { hide: true, response: { 404: notImplemented } } }, async () => {
    throw new AppError('NotImplemented', 'GET /payments is not implemented. Look up each payment with GET /api/v1/transactions/{id}.');
  });
  app.get(
    '/settlements/:id',
    {
      schema: {
        hide: true,
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
