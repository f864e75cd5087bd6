import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../../db/client';
import { settledTransactions } from '../../../db/queries/settlements';
import { validationError } from '../../../domain/errors';
import { settlementsCsv } from '../../../domain/settlements-csv';
import { requireMerchant } from './merchant-views';

const instant = z.string().datetime({ offset: true }).or(z.string().date()).describe('ISO 8601 date or timestamp');

/** Operators: a merchant's settled transactions (merchant payout confirmed in [from, to)) as CSV (decisions §11). */
const adminSettlementRoutes: FastifyPluginAsyncZod<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  app.get(
    '/merchants/:id/settlements.csv',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: 'A merchant’s settled transactions as CSV: gross, commission, net, deposit and payout transactions, timestamps',
        params: z.object({ id: z.string() }),
        querystring: z.object({ from: instant.optional(), to: instant.optional() }),
        response: { 200: z.string().describe('text/csv') },
      },
    },
    async (request, reply) => {
      const merchant = await requireMerchant(db, request.params.id);
      const from = request.query.from ? new Date(request.query.from) : new Date(0);
      const to = request.query.to ? new Date(request.query.to) : now();
      if (from >= to) throw validationError([{ path: 'from', message: 'Must be before `to`.' }], 'The date range is empty.');
      const csv = settlementsCsv(await settledTransactions(db, { merchantId: merchant.id, from, to }));
      void reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="settlements-${merchant.id}.csv"`);
      return csv;
    },
  );
};

export default adminSettlementRoutes;
