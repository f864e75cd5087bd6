import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { proofView } from './payment-views';

/** Operators: what proves a payment on chain, for a checkout session or a simple order. */
const adminPaymentProofRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/payments/:id/proof',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: 'A payment’s proof on chain: deposit address, token balance there now, credited logs with their confirmations',
        description:
          'For a checkout session (SV_…) or a simple order (its transaction code). The balance and confirmations are read from the chain now; chainError says why they could not be.',
        params: z.object({ id: z.string() }),
        response: { 200: z.object({ ok: z.literal(true), proof: proofView }) },
      },
    },
    async (request) => ({ ok: true as const, proof: await app.payments.paymentProof(request.params.id) }),
  );
};

export default adminPaymentProofRoutes;
