import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { validationError } from '../../../domain/errors';
import { settlementsCsv } from '../../../domain/settlements-csv';
import { balanceView, topUpAddressesView, viewBalance } from '../../balance-view';

const TX = '0x9f3c2a8e4b1d7c6f5a4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a';
// The documented example is what settlementsCsv writes for one settled payment.
const EXAMPLE_CSV = settlementsCsv([
  {
    paymentId: 'SV_4f9a1c2b7d8e6f5a4b3c2d1e',
    asset: 'USDC',
    network: 'polygon',
    grossMicro: 24_500_000n,
    commissionMicro: 367_500n,
    netMicro: 24_132_500n,
    depositTransactionHash: TX,
    payoutTransactionHash: '0x1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c',
    completedAt: new Date('2026-01-15T10:34:12.000Z'),
    settledAt: new Date('2026-01-15T10:36:40.000Z'),
    railType: 'fiat_to_crypto',
    provider: 'sandbox',
    orderId: 'order-1042',
  },
]);

const instant = z.string().datetime({ offset: true }).or(z.string().date()).describe('ISO 8601 date or timestamp');

/** Operators: a merchant's settled transactions (merchant payout confirmed in [from, to)) as CSV, and its balance (docs/settlement.md). */
const adminSettlementRoutes: FastifyPluginAsyncZod<{ now: () => Date }> = async (app, { now }) => {
  app.get(
    '/merchants/:id/settlements.csv',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: 'A merchant’s settled transactions as CSV: gross, commission, net, deposit and payout transactions, timestamps',
        description:
          'Transactions whose merchant payout was confirmed in [from, to) (default: all until now), one line each, for accounting; `order_id` (last) is the session’s orderId, or merchantOrderId.',
        params: z.object({ id: z.string() }),
        querystring: z.object({ from: instant.optional(), to: instant.optional() }),
        response: {
          200: z.string().meta({
            description: 'One line per settled transaction, with a header line.',
            contentMediaType: 'text/csv',
            examples: [EXAMPLE_CSV],
          }),
        },
      },
    },
    async (request, reply) => {
      const merchant = await app.payments.merchants.requireMerchant(request.params.id);
      const from = request.query.from ? new Date(request.query.from) : new Date(0);
      const to = request.query.to ? new Date(request.query.to) : now();
      if (from >= to) throw validationError([{ path: 'from', message: 'Must be before `to`.' }], 'The date range is empty.');
      const csv = settlementsCsv(await app.payments.merchants.settledTransactions(merchant.id, from, to));
      void reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="settlements-${merchant.id}.csv"`);
      return csv;
    },
  );

  app.get(
    '/merchants/:id/balance',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: 'A merchant’s balance per network and asset, and its top-up addresses',
        description:
          'What the merchant’s own GET /api/v1/balance answers, for support: pending, available and reserved per network and asset, and where it tops up.',
        params: z.object({ id: z.string() }),
        response: { 200: z.object({ ok: z.literal(true), balances: z.array(balanceView), topUpAddresses: topUpAddressesView }) },
      },
    },
    async (request) => {
      const merchant = await app.payments.merchants.requireMerchant(request.params.id);
      const [balances, topUpAddresses] = await Promise.all([
        app.payments.merchantBalances(merchant.id),
        app.payments.merchantTopUpAddresses(merchant.id),
      ]);
      return { ok: true as const, balances: balances.map(viewBalance), topUpAddresses };
    },
  );
};

export default adminSettlementRoutes;
