import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../../config';
import { requireCanonicalId } from '../lookup-id';
import { deliveryView, viewDelivery } from './merchant-views';

/** Operators: the delivery log of a payment, and resending a delivery (endpoints: webhook-endpoints.ts). */
const adminWebhookRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app) => {
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  app.get(
    '/webhook-deliveries',
    {
      schema: {
        tags,
        security,
        summary: 'Deliveries of a payment’s events, with every attempt',
        description:
          'One delivery per event and target URL, each with its attempts (status code, duration, error). What `ops deliveries list` prints.',
        querystring: z.object({ paymentId: z.string() }),
        response: { 200: z.object({ ok: z.literal(true), deliveries: z.array(deliveryView) }) },
      },
    },
    async (request) => {
      const rows = await app.payments.deliveries.forPayment(requireCanonicalId(request.query.paymentId));
      return { ok: true as const, deliveries: rows.map(viewDelivery) };
    },
  );

  app.post(
    '/webhook-deliveries/:id/resend',
    {
      schema: {
        tags,
        security,
        summary: 'Deliver again: same delivery id, same event id and body, fresh signature',
        description:
          'A delivery still backing off on its retry schedule is attempted at once (`mode: attempt_now`; the schedule goes on if that attempt fails, and sends nothing more once one succeeded); one that succeeded or failed gets a fresh run of the schedule (`new_schedule`). ' +
          '409 while an attempt is under way, with when the next is due should it fail (in the message) and `Retry-After` until it is over. The receiver may see the event again: it must process each eventId once.',
        params: z.object({ id: z.string() }),
        response: {
          202: z.object({
            ok: z.literal(true),
            deliveryId: z.string(),
            status: z.literal('pending'),
            mode: z.enum(['attempt_now', 'new_schedule']),
          }),
        },
      },
    },
    async (request, reply) => {
      const resent = await app.payments.resendDelivery(request.params.id);
      return reply.status(202).send({ ok: true as const, ...resent });
    },
  );
};

export default adminWebhookRoutes;
