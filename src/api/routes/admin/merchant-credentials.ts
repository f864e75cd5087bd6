import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../../db/client';
import { findCurrentLiveKey, setKeyExpiry } from '../../../db/queries/api-keys';
import { setSecurityCodeHash } from '../../../db/queries/merchants';
import { issueSecurityCode } from '../../../domain/credentials';
import { AppError } from '../../../domain/errors';
import { SCOPES, type Scope } from '../../../domain/scopes';
import { apiKeyView, issueKey, merchantParams, ok, requireMerchant, ROTATION_GRACE_MS, viewKey } from './merchant-views';

/** Operators: a merchant's restricted keys, live-key rotation (24 h grace) and security-code rotation. */
const adminMerchantCredentialRoutes: FastifyPluginAsyncZod<{ db: Database; now?: () => Date }> = async (
  app,
  { db, now = () => new Date() },
) => {
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
      const result = await db.transaction(async (tx) => {
        const m = await requireMerchant(tx, request.params.id, true);
        if (m.status !== 'approved') throw new AppError('Conflict', 'Keys are issued only to approved merchants.');
        const scopes = [...new Set(request.body.scopes)];
        return issueKey(tx, m.id, 'restricted', scopes);
      });
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
      return db.transaction(async (tx) => {
        const m = await requireMerchant(tx, request.params.id, true);
        const current = await findCurrentLiveKey(tx, m.id);
        if (!current) throw new AppError('Conflict', 'The merchant has no live key yet; approve it first.');
        const expiresAt = new Date(now().getTime() + ROTATION_GRACE_MS);
        await setKeyExpiry(tx, current.id, expiresAt);
        const issued = await issueKey(tx, m.id, 'live', current.scopes as Scope[]);
        return { ok: true as const, apiKey: issued.plaintext, previousKeyExpiresAt: expiresAt.toISOString() };
      });
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
      return db.transaction(async (tx) => {
        const m = await requireMerchant(tx, request.params.id, true);
        const code = issueSecurityCode();
        await setSecurityCodeHash(tx, m.id, code.hash);
        return { ok: true as const, securityCode: code.plaintext };
      });
    },
  );
};

export default adminMerchantCredentialRoutes;
