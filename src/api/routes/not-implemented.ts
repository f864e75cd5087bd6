import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../domain/errors';

const notImplemented = z.object({ ok: z.literal(false), error: z.literal('NotImplemented'), message: z.string(), requestId: z.string() });

// GET /api/v1/payments (docs/api.md): it answers 404 NotImplemented and says where to look instead. It is no operation of
// the API, so the OpenAPI document names it in its description rather than as a path (an operation
// with no success answer is an error under the linters' rulesets, rightly).
const notImplementedRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/payments', { schema: { hide: true, response: { 404: notImplemented } } }, async () => {
    throw new AppError('NotImplemented', 'GET /payments is not implemented. Look up each payment with GET /api/v1/transactions/{id}.');
  });
};

export default notImplementedRoutes;
