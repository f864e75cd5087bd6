import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const funding = z.object({
  network: z.string(),
  asset: z.string().describe('USDC, USDT, or `native` for the coin that pays gas'),
  amount: z
    .string()
    .describe('Micro units of a stablecoin, wei of the native coin')
    .meta({ examples: ['12500000'] }),
  from: z.string(),
  transactionHash: z.string(),
  logIndex: z.number().int().nullable().describe("The token transfer's log; null for the transaction's native value"),
  recordedNow: z.boolean().describe('False when an earlier call recorded it already'),
});

/** Operators: money put into a treasury from outside is recorded from its transaction, so reconciliation knows it. */
const adminTreasuryRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/treasury/fundings',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: "Record an operator's funding of a treasury (stablecoin, or native coin for gas) from its transaction",
        description:
          'The transaction is read from the chain: every transfer of a configured token to the treasury, and its native value when sent to the treasury, once it has the network’s confirmations. Recording the same transaction again changes nothing. Transfers from the platform’s own deposit addresses and transactions the platform sent are refused (409).',
        body: z.object({
          network: z.string().min(1).max(32),
          transactionHash: z.string().min(1).max(100).describe('0x and 64 hexadecimal digits'),
        }),
        response: {
          200: z.object({ ok: z.literal(true), fundings: z.array(funding) }),
          201: z.object({ ok: z.literal(true), fundings: z.array(funding) }),
        },
      },
    },
    async (request, reply) => {
      const fundings = await app.payments.recordTreasuryFunding(request.body);
      return reply.code(fundings.some((f) => f.recordedNow) ? 201 : 200).send({ ok: true as const, fundings });
    },
  );
};

export default adminTreasuryRoutes;
