import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PAYOUT_STATUSES, payoutView, viewPayout } from '../../payouts/views';

/** Operators: payouts across payments, failed ones first of all, and their retry. */
const adminPayoutRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  app.get(
    '/payouts',
    {
      schema: {
        tags,
        security,
        summary:
          'Payouts across payments, oldest first; `status=failed` is the queue of payouts waiting for an operator (each with its reason)',
        description:
          'A failed payout waits here until POST /admin/v1/payouts/{id}/retry, or until a later settlement run carries its payments; the svc_payouts_failed metric counts them.',
        querystring: z.object({ status: z.enum(PAYOUT_STATUSES).optional(), limit: z.coerce.number().int().min(1).max(500).default(100) }),
        response: { 200: z.object({ ok: z.literal(true), payouts: z.array(payoutView) }) },
      },
    },
    async (request) => {
      const rows = await app.payments.listPayouts(request.query.status, request.query.limit);
      return { ok: true as const, payouts: rows.map(viewPayout) };
    },
  );

  app.post(
    '/payouts/:id/retry',
    {
      schema: {
        tags,
        security,
        summary:
          'Try a failed payout again once its cause is fixed: a refund’s or a simple order’s run reopens it (a transfer that may be on chain is sent again as signed, never signed anew) and sends it; a settlement run’s sweep or payout is planned anew by the next run (the failed row stays, as history). 409 unless it is failed and waiting',
        description: 'Answers the payout as it now stands; follow it with GET /admin/v1/payments/{id} or GET /admin/v1/payouts.',
        params: z.object({ id: z.string() }),
        response: { 200: z.object({ ok: z.literal(true), payout: payoutView }) },
      },
    },
    async (request) => {
      const payout = await app.payments.retryPayout(request.params.id);
      return { ok: true as const, payout: viewPayout(payout) };
    },
  );
};

export default adminPayoutRoutes;
