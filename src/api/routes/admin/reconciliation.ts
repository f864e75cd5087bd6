import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

// Exported for the ops CLI's compile-time check of what it reads (src/cli/commands/reconcile.ts).
export const difference = z.object({
  account: z.string().describe('`deposit:<address>`, `treasury:<address>` or `transaction:<payment id>`'),
  expected: z.string().describe('What the ledger (or the payouts) say: micro units, wei for the native coin, or a hash'),
  actual: z.string().describe('What the chain (or the transactions table) says'),
  note: z.string(),
});

/** Operators: the ledger against the chain and the transactions table; no differences is healthy. */
const adminReconciliationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/reconciliation',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: 'Differences between the ledger, on-chain balances and the transactions table',
        description:
          'An empty list means the ledger, the chain and the transactions table agree. Balances are read from each configured network now.',
        response: { 200: z.object({ ok: z.literal(true), differences: z.array(difference) }) },
      },
    },
    async () => ({ ok: true as const, differences: await app.payments.reconcile() }),
  );
};

export default adminReconciliationRoutes;
