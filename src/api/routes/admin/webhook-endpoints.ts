import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../../config';
import type { EndpointChange } from '../../../accounts/merchant-credentials';
import { eventTypesInput } from '../../../domain/dashboard-inputs';
import { endpointView, viewEndpoint as view } from './merchant-views';

// The secret is shown once, at registration; no other answer carries it, in any form.
const endpointAnswer = z.object({ ok: z.literal(true), endpoint: endpointView });
const merchantParams = z.object({ id: z.string() });
const endpointParams = z.object({ id: z.string(), endpointId: z.string() });

/** Operators: a merchant's webhook endpoints: register, list, enable/disable, delete. */
const adminWebhookEndpointRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app) => {
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  const merchants = app.payments.merchants;
  const requireMerchant = (id: string) => merchants.requireMerchant(id);

  /** An endpoint of this merchant: a malformed id, or one of another merchant, is simply not found. */
  async function changeEndpoint(params: { id: string; endpointId: string }, change: EndpointChange) {
    const merchant = await requireMerchant(params.id);
    return { ok: true as const, endpoint: view(await merchants.changeEndpoint(merchant.id, params.endpointId, change)) };
  }

  app.post(
    '/merchants/:id/webhook-endpoints',
    {
      schema: {
        tags,
        security,
        summary: 'Register a webhook endpoint; its signing secret is shown once',
        description:
          'The URL must be https on a public address (checked now and again at each delivery). An enabled endpoint receives the event types it lists (`eventTypes`), or every event of the merchant without the list.',
        params: merchantParams,
        body: z.strictObject({ url: z.string().max(2048), eventTypes: eventTypesInput }),
        response: { 201: z.object({ ok: z.literal(true), endpoint: endpointView, secret: z.string() }) },
      },
    },
    async (request, reply) => {
      const merchant = await requireMerchant(request.params.id);
      const { endpoint, secret } = await merchants.addEndpoint(merchant.id, request.body);
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
      async (request) => changeEndpoint(request.params, action),
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
    async (request) => changeEndpoint(request.params, 'delete'),
  );
};

export default adminWebhookEndpointRoutes;
