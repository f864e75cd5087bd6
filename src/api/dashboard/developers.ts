import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { MerchantCredentials } from '../../accounts/merchant-credentials';
import type { PaymentService } from '../../payments';
import type { DashboardAudit } from '../../accounts/dashboard-audit';
import { REQUEST_LOG_RETENTION_DAYS } from '../../accounts/request-log';
import type { SiteRow } from '../../payments/rows';
import { SCOPES } from '../../domain/scopes';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../../domain/webhook-event-types';
import { apiKeyView, deliveryView, endpointView, viewDelivery, viewEndpoint, viewKey } from '../routes/admin/merchant-views';
import { webhookEndpointInput } from '../../domain/dashboard-inputs';
import { rolesFor } from '../../domain/dashboard-roles';
import { actorOf, hide, type SignedIn } from './guard';
import { requestLogView, siteView } from './views/developers';
import { ok } from './views/ok';

// The dashboard's developers area: API keys, the Security Code, webhook endpoints and their
// deliveries, connected plugin sites and the request log. Owners, admins and developers only.

const endpointParams = z.object({ endpointId: z.string().max(100) });

export interface DeveloperRoutesOptions {
  credentials: MerchantCredentials;
  /** The payment engine's use cases (webhook deliveries: the log, a test event, a resend). */
  payments: PaymentService;
  audit: DashboardAudit;
  signedIn: SignedIn;
}

const developerRoutes: FastifyPluginAsyncZod<DeveloperRoutesOptions> = async (app, { credentials, payments, audit, signedIn }) => {
  app.get('/api-keys', { schema: { hide, response: { 200: z.object({ ok, keys: z.array(apiKeyView) }) } } }, async (request) => {
    const s = await signedIn(request, rolesFor('developers.read'));
    return { ok: true as const, keys: (await credentials.listKeys(s.merchantId)).map(viewKey) };
  });

  app.post('/api-keys/live/reveal', { schema: { hide, response: { 200: z.object({ ok, apiKey: z.string() }) } } }, async (request) => {
    const s = await signedIn(request, rolesFor('liveKey.reveal'), { stepUp: true });
    return { ok: true as const, apiKey: await credentials.revealLiveKey(actorOf(request, s)) };
  });

  app.post(
    '/api-keys/live/rotate',
    { schema: { hide, response: { 200: z.object({ ok, apiKey: z.string(), previousKeyExpiresAt: z.string() }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('developers.manage'), { stepUp: true });
      const rotated = await credentials.rotateLiveKey(actorOf(request, s));
      return { ok: true as const, apiKey: rotated.apiKey, previousKeyExpiresAt: rotated.previousKeyExpiresAt.toISOString() };
    },
  );

  app.post(
    '/security-code/rotate',
    { schema: { hide, response: { 200: z.object({ ok, securityCode: z.string() }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('developers.manage'), { stepUp: true });
      return { ok: true as const, securityCode: await credentials.rotateSecurityCode(actorOf(request, s)) };
    },
  );

  app.get(
    '/webhook-endpoints',
    { schema: { hide, response: { 200: z.object({ ok, endpoints: z.array(endpointView) }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('developers.read'));
      return { ok: true as const, endpoints: (await credentials.listEndpoints(s.merchantId)).map(viewEndpoint) };
    },
  );

  app.post(
    '/webhook-endpoints',
    {
      schema: {
        hide,
        body: webhookEndpointInput,
        response: { 201: z.object({ ok, endpoint: endpointView, secret: z.string() }) },
      },
    },
    async (request, reply) => {
      // A new endpoint is sent every payment's events, signed with a secret shown in this answer: as
      // much a secret and as far-reaching as a rolled one.
      const s = await signedIn(request, rolesFor('developers.manage'), { stepUp: true });
      const { endpoint, secret } = await credentials.addEndpoint(actorOf(request, s), request.body);
      return reply.status(201).send({ ok: true as const, endpoint: viewEndpoint(endpoint), secret });
    },
  );

  app.post(
    '/webhook-endpoints/:endpointId/roll-secret',
    {
      schema: {
        hide,
        params: endpointParams,
        response: { 200: z.object({ ok, endpoint: endpointView, secret: z.string() }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('developers.manage'), { stepUp: true });
      const { endpoint, secret } = await credentials.rollEndpointSecret(actorOf(request, s), request.params.endpointId);
      return { ok: true as const, endpoint: viewEndpoint(endpoint), secret };
    },
  );

  for (const change of ['enable', 'disable'] as const) {
    app.post(
      `/webhook-endpoints/:endpointId/${change}`,
      { schema: { hide, params: endpointParams, response: { 200: z.object({ ok, endpoint: endpointView }) } } },
      async (request) => {
        const s = await signedIn(request, rolesFor('developers.manage'));
        return {
          ok: true as const,
          endpoint: viewEndpoint(await credentials.changeEndpoint(actorOf(request, s), request.params.endpointId, change)),
        };
      },
    );
  }

  app.delete(
    '/webhook-endpoints/:endpointId',
    { schema: { hide, params: endpointParams, response: { 200: z.object({ ok, endpoint: endpointView }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('developers.manage'));
      return {
        ok: true as const,
        endpoint: viewEndpoint(await credentials.changeEndpoint(actorOf(request, s), request.params.endpointId, 'delete')),
      };
    },
  );

  app.post(
    '/webhook-endpoints/:endpointId/test',
    {
      schema: {
        hide,
        params: endpointParams,
        response: { 202: z.object({ ok, deliveryId: z.string(), eventId: z.string(), status: z.literal('pending') }) },
      },
    },
    async (request, reply) => {
      const s = await signedIn(request, rolesFor('developers.manage'));
      const sent = await payments.sendTestEvent(s.merchantId, request.params.endpointId);
      // The event is the engine's, written in its own transaction; the line follows it.
      await audit.record(actorOf(request, s), 'webhook_endpoint.test_sent', request.params.endpointId, { eventId: sent.eventId });
      return reply.status(202).send({ ok: true as const, ...sent });
    },
  );

  app.get(
    '/webhook-deliveries',
    {
      schema: {
        hide,
        querystring: z.strictObject({
          status: z.enum(['pending', 'succeeded', 'failed']).optional(),
          eventType: z.enum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]).optional(),
        }),
        response: { 200: z.object({ ok, deliveries: z.array(deliveryView) }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('developers.read'));
      const rows = await payments.deliveries.forMerchant(s.merchantId, request.query);
      return { ok: true as const, deliveries: rows.map(viewDelivery) };
    },
  );

  app.post(
    '/webhook-deliveries/:deliveryId/resend',
    {
      schema: {
        hide,
        params: z.object({ deliveryId: z.string().max(100) }),
        response: { 202: z.object({ ok, deliveryId: z.string(), status: z.literal('pending') }) },
      },
    },
    async (request, reply) => {
      const s = await signedIn(request, rolesFor('developers.manage'));
      const resent = await payments.resendDelivery(request.params.deliveryId, s.merchantId);
      await audit.record(actorOf(request, s), 'webhook_delivery.resent', request.params.deliveryId, { newDeliveryId: resent.deliveryId });
      return reply.status(202).send({ ok: true as const, ...resent });
    },
  );

  app.post(
    '/api-keys',
    {
      schema: {
        hide,
        body: z.strictObject({ scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length) }),
        response: { 201: z.object({ ok, apiKey: z.string(), key: apiKeyView }) },
      },
    },
    async (request, reply) => {
      // A key with every scope can do all the live key can: it asks who you are again, as rotating
      // that key does. A narrower key does not.
      const fullScope = SCOPES.every((scope) => request.body.scopes.includes(scope));
      const s = await signedIn(request, rolesFor('developers.manage'), { stepUp: fullScope });
      const issued = await credentials.issueRestrictedKey(actorOf(request, s), request.body.scopes);
      return reply.status(201).send({ ok: true as const, apiKey: issued.plaintext, key: viewKey(issued.row) });
    },
  );

  app.post(
    '/api-keys/:keyId/revoke',
    { schema: { hide, params: z.object({ keyId: z.string().max(100) }), response: { 200: z.object({ ok, key: apiKeyView }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('developers.manage'));
      return { ok: true as const, key: viewKey(await credentials.revokeKey(actorOf(request, s), request.params.keyId)) };
    },
  );

  // Connected plugin websites: never their webhook secret or verification token.
  const viewSite = (site: SiteRow): z.infer<typeof siteView> => ({
    id: site.id,
    siteUrl: site.siteUrl,
    platform: site.platform,
    pluginVersion: site.pluginVersion,
    status: site.status,
    verifiedAt: site.verifiedAt?.toISOString() ?? null,
    createdAt: site.createdAt.toISOString(),
  });

  app.get('/sites', { schema: { hide, response: { 200: z.object({ ok, sites: z.array(siteView) }) } } }, async (request) => {
    const s = await signedIn(request, rolesFor('developers.read'));
    return { ok: true as const, sites: (await credentials.listSites(s.merchantId)).map(viewSite) };
  });

  app.post(
    '/sites/:siteId/disconnect',
    { schema: { hide, params: z.object({ siteId: z.string().max(100) }), response: { 200: z.object({ ok, site: siteView }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('developers.manage'));
      return { ok: true as const, site: viewSite(await credentials.disconnectSite(actorOf(request, s), request.params.siteId)) };
    },
  );

  app.get('/request-log', { schema: { hide, response: { 200: requestLogView } } }, async (request) => {
    const s = await signedIn(request, rolesFor('developers.read'));
    const rows = await credentials.requestLog(s.merchantId);
    return {
      ok: true as const,
      retentionDays: REQUEST_LOG_RETENTION_DAYS,
      requests: rows.map((r) => ({
        at: r.entry.createdAt.toISOString(),
        method: r.entry.method,
        path: r.entry.path,
        statusCode: r.entry.statusCode,
        requestId: r.entry.requestId,
        key: { id: r.entry.keyId, shown: r.keyPrefix ? `${r.keyPrefix}…${r.keyLast4}` : null },
      })),
    };
  });
};

export default developerRoutes;
