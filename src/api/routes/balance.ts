import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { balanceView, topUpAddressesView, viewBalance } from '../balance-view';

// What the merchant is owed, per network and asset, from the ledger's merchant accounts (docs/settlement.md).
const balanceRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/balance',
    {
      preHandler: app.requireScope('transactions:read'),
      schema: {
        operationId: 'getBalance',
        tags: ['settlement'],
        summary: 'Your balance, per network and asset, and your top-up addresses',
        description:
          'What the platform owes you, one entry per network and asset you have been paid in (none before your first completed payment), ' +
          'in decimal strings with 6 decimals. A completed payment’s share is `pending` until its hold ends, then `available` (or `reserved`, ' +
          'kept back for refunds); a settlement run pays `available` to your wallet (GET /api/v1/settlements). A payout on its way is in none of the three. ' +
          '`topUpAddresses` are where you top up `available` for refunds.',
        security: [{ apiKey: [] }],
        response: {
          200: z.object({ ok: z.literal(true), balances: z.array(balanceView), topUpAddresses: topUpAddressesView }),
        },
      },
    },
    async (request) => {
      const merchantId = request.merchant!.id;
      const [balances, topUpAddresses] = await Promise.all([
        app.payments.merchantBalances(merchantId),
        app.payments.merchantTopUpAddresses(merchantId),
      ]);
      return { ok: true as const, balances: balances.map(viewBalance), topUpAddresses };
    },
  );
};

export default balanceRoutes;
