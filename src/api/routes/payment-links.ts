import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PaymentContext } from '../../payments';
import { createCheckoutSessionBody } from './checkout-sessions';
import { paymentLinkSchema, paymentLinkView } from './payment-link-view';

const v1 = createCheckoutSessionBody.shape;

// Required amount and currency; expiresInMinutes 5..43,200, default 7 days.
export const createPaymentLinkBody = z.strictObject({
  amount: v1.amount,
  currency: v1.currency,
  destinationAsset: v1.destinationAsset,
  network: v1.network,
  description: z.string().min(1).max(500).optional(),
  merchantOrderId: v1.merchantOrderId,
  expiresInMinutes: z.number().int().min(5).max(43_200).default(10_080),
});

/** Shareable payment links: a row, and the workflow that expires it. */
const paymentLinkRoutes: FastifyPluginAsyncZod<PaymentContext> = async (app, { config }) => {
  app.post(
    '/payment-links',
    {
      preHandler: [app.requireScope('payment_links:create'), (request, reply) => app.idempotent(request, reply)],
      schema: {
        operationId: 'createPaymentLink',
        tags: ['payment links'],
        summary: 'Create a shareable payment link',
        description: 'The link can be paid once, until it expires. Send an Idempotency-Key header to make retries safe.',
        security: [{ apiKey: [] }],
        headers: z.object({ 'idempotency-key': z.string().max(255).optional() }),
        body: createPaymentLinkBody,
        response: { 201: z.object({ ok: z.literal(true), paymentLink: paymentLinkSchema, checkoutUrl: z.string() }) },
      },
    },
    async (request, reply) => {
      const link = await app.payments.openPaymentLink(request.merchant!, request.body);
      const view = paymentLinkView(link, config.http.publicBaseUrl);
      return reply.status(201).send({ ok: true as const, paymentLink: view, checkoutUrl: view.url });
    },
  );
};

export default paymentLinkRoutes;
