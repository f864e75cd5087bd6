import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../../config';
import type { EndpointRow } from '../../../payments/rows';
import { notFound } from '../../../domain/errors';

const ENDPOINT_ID = /^we_[A-Za-z0-9]{16}$/;

// The secret is shown once, at registration; no other answer carries it, in any form.
const endpointView = z.object({ id: z.string(), url: z.string(), enabled: z.boolean(), createdAt: z.string() });
const endpointAnswer = z.object({ ok: z.literal(true), endpoint: endpointView });
const merchantParams = z.object({ id: z.string() });
const endpointParams = z.object({ id: z.string(), endpointId: z.string() });

const view = (e: EndpointRow): z.infer<typeof endpointView> => ({
  id: e.id,
  url: e.url,
  enabled: e.enabled,
  createdAt: e.createdAt.toISOString(),
});

/** Operators: a merchant's webhook endpoints (decisions §8, §10): register, list, enable/disable, delete. */
const adminWebhookEndpointRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app) => {
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  const merchants = app.payments.merchants;
  const requireMerchant = (id: string) => merchants.requireMerchant(id);

  /** An endpoint of this merchant: a malformed id, or one of another merchant, is simply not found. */
  async function changeEndpoint(
    params: { id: string; endpointId: string },
    change: (input: { merchantId: string; endpointId: string }) => Promise<EndpointRow | undefined>,
  ) {
    const merchant = await requireMerchant(params.id);
    const row = ENDPOINT_ID.test(params.endpointId) ? await change({ merchantId: merchant.id, endpointId: params.endpointId }) : undefined;
    if (!row) throw notFound('Webhook endpoint');
    return { ok: true as const, endpoint: view(row) };
  }

  app.post(
    '/merchants/:id/webhook-endpoints',
    {
      schema: {
        tags,
        security,
        summary: 'Register a webhook endpoint; its signing secret is shown once',
        description:
          'The URL must be https on a public address (checked now and again at each delivery). Every enabled endpoint receives every event of the merchant.',
        params: merchantParams,
        body: z.strictObject({ url: z.string().max(2048) }),
        response: { 201: z.object({ ok: z.literal(true), endpoint: endpointView, secret: z.string() }) },
      },
    },
    async (request, reply) => {
      const merchant = await requireMerchant(request.params.id);
      const { endpoint, secret } = await merchants.addEndpoint(merchant.id, request.body.url);
      return reply.status(201).send({ ok: true as const, endpoint: view(endpoint), secret });
    },
  );

  app.get(
    '/merchants/:id/webhook-endpoints',
    {
      schema: {
        tags,
        security,
        summary: 'List a merchant’s webhook endpoints, enabled or not (never their secrets)',
        description: 'Oldest first, each with its URL and whether it is enabled.',
        params: merchantParams,
        response: { 200: z.object({ ok: z.literal(true), endpoints: z.array(endpointView) }) },
      },
    },
    async (request) => {
      const merchant = await requireMerchant(request.params.id);
      return { ok: true as const, endpoints: (await merchants.listEndpoints(merchant.id)).map(view) };
    },
  );

  for (const [action, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    app.post(
      `/merchants/:id/webhook-endpoints/:endpointId/${action}`,
      {
        schema: {
          tags,
          security,
          summary: enabled
            ? 'Enable a webhook endpoint again: new events are delivered to it'
            : 'Disable a webhook endpoint: new events skip it; deliveries already under way continue',
          description: 'Enabling and disabling are idempotent: asking again answers the endpoint as it is.',
          params: endpointParams,
          response: { 200: endpointAnswer },
        },
      },
      async (request) => changeEndpoint(request.params, (input) => merchants.setEndpointEnabled({ ...input, enabled })),
    );
  }

  app.delete(
    '/merchants/:id/webhook-endpoints/:endpointId',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a webhook endpoint and its secret; its delivery log stays',
        description: 'Deliveries already under way to it continue with the secret they were signed with.',
        params: endpointParams,
        response: { 200: endpointAnswer },
      },
    },
    async (request) => changeEndpoint(request.params, (input) => merchants.deleteEndpoint(input)),
  );
};

export default adminWebhookEndpointRoutes;
