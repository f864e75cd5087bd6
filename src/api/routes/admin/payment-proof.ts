import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PAYMENT_STATUSES, SIMPLE_ORDER_STATUSES } from '../../../domain/payment-status';

/** One log recorded at a payment's deposit address (the dashboard's proof adds its explorer link). */
export const proofCreditView = z.object({
  transactionHash: z.string(),
  logIndex: z.number(),
  token: z.string(),
  asset: z.string().nullable(),
  amount: z.string(),
  blockNumber: z.string(),
  confirmations: z.string().nullable(),
  state: z.string(),
});

/** What proves a payment on chain: the operator's view; the dashboard shows it without the ids. */
export const proofView = z.object({
  paymentId: z.string(),
  kind: z.enum(['checkout_session', 'simple_order']),
  status: z.string().meta({
    description: 'The checkout session’s or the simple order’s status.',
    enum: [...new Set([...PAYMENT_STATUSES, ...SIMPLE_ORDER_STATUSES])],
    examples: ['completed'],
  }),
  verification: z.enum(['chain', 'provider']),
  network: z.string(),
  asset: z.string(),
  depositAddress: z.string().nullable(),
  expectedGross: z.string().nullable(),
  credited: z.string(),
  chain: z
    .object({ chainId: z.number(), token: z.string(), head: z.string(), confirmationsRequired: z.number(), balance: z.string() })
    .nullable(),
  chainError: z.string().nullable(),
  credits: z.array(proofCreditView),
});

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
