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
          '409 while the delivery is still being retried on its schedule, with when its next attempt is due (in the message and `Retry-After`); resend once it has succeeded or failed. The receiver may see the event again: it must process each eventId once.',
        params: z.object({ id: z.string() }),
        response: { 202: z.object({ ok: z.literal(true), deliveryId: z.string(), status: z.literal('pending') }) },
      },
    },
    async (request, reply) => {
      const resent = await app.payments.resendDelivery(request.params.id);
      return reply.status(202).send({ ok: true as const, ...resent });
    },
  );
};

export default adminWebhookRoutes;
