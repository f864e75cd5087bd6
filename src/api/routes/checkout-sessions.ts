import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findMerchantName } from '../../db/queries/merchants';
import { findVisibleSession } from '../../db/queries/checkout-sessions';
import { notFound } from '../../domain/errors';
import type { PaymentContext } from '../../payments';
import { checkoutSessionSchema, checkoutSessionView, publicSessionSchema, publicSessionView } from '../checkout/views';
import { requireCanonicalId } from './lookup-id';

const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

const metadataValue = z.union([z.string().max(500), z.number(), z.boolean(), z.null()]);

// Decisions §5: required amount, currency, countryCode; unknown fields are 422.
export const createCheckoutSessionBody = z.strictObject({
  amount: z.number().positive(),
  currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code'),
  countryCode: z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code'),
  destinationAsset: z.string().min(1).max(16).optional(),
  network: z.string().min(1).max(32).optional(),
  customerEmail: z.email().max(254).optional(),
  orderId: z.string().min(1).max(200).optional(),
  merchantOrderId: z.string().min(1).max(200).optional(),
  successUrl: httpUrl.optional(),
  cancelUrl: httpUrl.optional(),
  webhookUrl: httpUrl.optional(),
  metadata: z
    .record(z.string().min(1).max(40), metadataValue)
    .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
    .optional(),
});

const checkoutSessionRoutes: FastifyPluginAsyncZod<PaymentContext> = async (app, deps) => {
  app.post(
    '/checkout/sessions',
    {
      preHandler: [app.requireScope('checkout_sessions:create'), app.idempotent],
      schema: {
        operationId: 'createCheckoutSession',
        tags: ['checkout'],
        summary: 'Create a hosted checkout session',
        description: 'Send an Idempotency-Key header to make retries safe. Redirect the customer to checkoutSession.checkoutUrl.',
        security: [{ apiKey: [] }],
        headers: z.object({ 'idempotency-key': z.string().max(255).optional() }),
        body: createCheckoutSessionBody,
        response: { 201: z.object({ ok: z.literal(true), checkoutSession: checkoutSessionSchema }) },
      },
    },
    async (request, reply) => {
      const session = await app.payments.openCheckoutSession(request.merchant!, request.body);
      return reply.status(201).send({ ok: true as const, checkoutSession: checkoutSessionView(session, deps.config.http.publicBaseUrl) });
    },
  );

  // Public (spec §4.2): the hosted page and status pages poll it. Customer-facing fields only.
  app.get(
    '/checkout/sessions/:id',
    {
      schema: {
        operationId: 'getPublicCheckoutSession',
        tags: ['checkout'],
        summary: 'Public status of a checkout session (no authentication)',
        params: z.object({ id: z.string() }),
        response: { 200: publicSessionSchema.extend({ ok: z.literal(true) }) },
      },
    },
    async (request, reply) => {
      const id = requireCanonicalId(request.params.id);
      const session = await findVisibleSession(deps.db, id);
      if (!session) throw notFound('Checkout session');
      const merchantName = await findMerchantName(deps.db, session.merchantId);
      void reply.header('cache-control', 'no-store');
      return { ok: true as const, ...publicSessionView(session, merchantName ?? '') };
    },
  );

  // Public like the lookup above (decisions §11): the hosted page's "pay from your wallet" as JSON.
  app.post(
    '/checkout/sessions/:id/deposit',
    {
      schema: {
        tags: ['checkout'],
        summary: 'Deposit instructions for paying a checkout session from a wallet (no authentication, idempotent)',
        params: z.object({ id: z.string() }),
        response: {
          200: z.object({
            ok: z.literal(true),
            deposit: z.object({
              address: z.string(),
              asset: z.string(),
              network: z.string(),
              chainId: z.number().int(),
              amount: z.string(),
              uri: z.string(),
              expiresAt: z.string(),
            }),
          }),
        },
      },
    },
    async (request, reply) => {
      const deposit = await app.payments.openDirectDeposit(requireCanonicalId(request.params.id));
      void reply.header('cache-control', 'no-store');
      return { ok: true as const, deposit };
    },
  );
};

export default checkoutSessionRoutes;
