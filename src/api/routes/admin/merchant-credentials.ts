import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SCOPES } from '../../../domain/scopes';
import { apiKeyView, merchantParams, ok, viewKey } from './merchant-views';

/** Operators: a merchant's restricted keys, live-key rotation (24 h grace) and security-code rotation. */
const adminMerchantCredentialRoutes: FastifyPluginAsyncZod = async (app) => {
  const merchants = app.payments.merchants;
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  app.post(
    '/merchants/:id/api-keys',
    {
      schema: {
        tags,
        security,
        summary: 'Issue a restricted key with a subset of scopes',
        description: 'The key is shown once in this answer. Only approved merchants get keys (409 otherwise).',
        params: merchantParams,
        body: z.strictObject({ scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length) }),
        response: { 201: z.object({ ok, apiKey: z.string(), key: apiKeyView }) },
      },
    },
    async (request, reply) => {
      const result = await merchants.issueRestrictedKey(request.params.id, request.body.scopes);
      return reply.status(201).send({ ok: true as const, apiKey: result.plaintext, key: viewKey(result.row) });
    },
  );

  app.post(
    '/merchants/:id/api-keys/rotate',
    {
      schema: {
        tags,
        security,
        summary: 'Rotate the live key; the previous one keeps working for 24 hours',
        description: 'The new key is shown once in this answer; previousKeyExpiresAt says when the old one stops working.',
        params: merchantParams,
        response: { 200: z.object({ ok, apiKey: z.string(), previousKeyExpiresAt: z.string() }) },
      },
    },
    async (request) => {
      const rotated = await merchants.rotateLiveKey(request.params.id);
      return { ok: true as const, apiKey: rotated.apiKey, previousKeyExpiresAt: rotated.previousKeyExpiresAt.toISOString() };
    },
  );

  app.post(
    '/merchants/:id/security-code/rotate',
    {
      schema: {
        tags,
        security,
        summary: 'Rotate the security code; the old one stops working at once',
        description:
          'The new code is shown once in this answer. Websites already connected keep working; only a new plugin connect needs the new code.',
        params: merchantParams,
        response: { 200: z.object({ ok, securityCode: z.string() }) },
      },
    },
    async (request) => {
      return { ok: true as const, securityCode: await merchants.rotateSecurityCode(request.params.id) };
    },
  );
};

export default adminMerchantCredentialRoutes;
