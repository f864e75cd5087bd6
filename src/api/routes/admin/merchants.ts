import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../../db/client';
import { findCurrentLiveKey, revokeApiKey } from '../../../db/queries/api-keys';
import { listMerchants, setMerchantStatus, upsertWallet } from '../../../db/queries/merchants';
import { holdLiveKeyForDashboard, openMerchant } from '../../../payments/merchant-credentials';
import { AppError, notFound } from '../../../domain/errors';
import { SCOPES } from '../../../domain/scopes';
import {
  apiKeyView,
  checkWallets,
  issueKey,
  merchantParams,
  merchantView,
  ok,
  requireMerchant,
  viewKey,
  viewMerchant,
  walletInput,
  walletView,
} from './merchant-views';

const adminMerchantRoutes: FastifyPluginAsyncZod<{ db: Database; secretsKey: Buffer }> = async (app, { db, secretsKey }) => {
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  app.post(
    '/merchants',
    {
      schema: {
        tags,
        security,
        summary: 'Create a merchant (pending review)',
        description:
          'Answers the merchant with its security code and default webhook secret (which signs deliveries to a session’s webhookUrl), each shown once. No live key until the merchant is approved.',
        body: z.strictObject({
          name: z.string().trim().min(1).max(200),
          commissionBps: z.number().int().min(0).max(10000).optional(),
          wallets: z.array(walletInput).max(20).optional(),
        }),
        response: { 201: z.object({ ok, merchant: merchantView, securityCode: z.string(), webhookSecret: z.string() }) },
      },
    },
    async (request, reply) => {
      const { name, commissionBps = 100 } = request.body;
      const wallets = checkWallets(request.body.wallets ?? []);
      const { merchant, securityCode, webhookSecret } = await db.transaction(async (tx) => {
        const opened = await openMerchant(tx, secretsKey, { name, commissionBps });
        for (const w of wallets) await upsertWallet(tx, { merchantId: opened.merchant.id, ...w });
        return { ...opened, merchant: await viewMerchant(tx, opened.merchant) };
      });
      return reply.status(201).send({ ok: true as const, merchant, securityCode, webhookSecret });
    },
  );

  app.get(
    '/merchants',
    {
      schema: {
        tags,
        security,
        summary: 'List merchants, newest first',
        description: 'Each merchant with its status, settlement wallets and keys (never a secret).',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
        response: { 200: z.object({ ok, merchants: z.array(merchantView) }) },
      },
    },
    async (request) => {
      const rows = await listMerchants(db, request.query.limit);
      return { ok: true as const, merchants: await Promise.all(rows.map((m) => viewMerchant(db, m))) };
    },
  );

  app.post(
    '/merchants/:id/api-keys/:keyId/revoke',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke one key at once (a leaked key); other keys are untouched',
        description: 'The key answers 401 from the next request on (the key cache is emptied before this answer leaves).',
        params: z.object({ id: z.string(), keyId: z.string() }),
        response: { 200: z.object({ ok, key: apiKeyView }) },
      },
    },
    async (request) => {
      const m = await requireMerchant(db, request.params.id);
      const key = await revokeApiKey(db, m.id, request.params.keyId);
      if (!key) throw notFound('API key');
      request.log.warn({ merchantId: m.id, keyId: key.id }, 'API key revoked');
      return { ok: true as const, key: viewKey(key) };
    },
  );

  app.get(
    '/merchants/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Get a merchant',
        description: 'Its status, settlement wallets and keys (never a secret).',
        params: merchantParams,
        response: { 200: z.object({ ok, merchant: merchantView }) },
      },
    },
    async (request) => ({ ok: true as const, merchant: await viewMerchant(db, await requireMerchant(db, request.params.id)) }),
  );

  app.post(
    '/merchants/:id/approve',
    {
      schema: {
        tags,
        security,
        summary: 'Approve a merchant; issues the live key on first approval',
        description: 'The live key is returned once. Re-approving a suspended merchant reinstates its existing keys (apiKey null).',
        params: merchantParams,
        response: { 200: z.object({ ok, merchant: merchantView, apiKey: z.string().nullable() }) },
      },
    },
    async (request) => {
      return db.transaction(async (tx) => {
        const m = await requireMerchant(tx, request.params.id, true);
        if (m.status === 'approved') {
          throw new AppError('Conflict', 'The merchant is already approved; rotate the key to get a new one.');
        }
        const existing = await findCurrentLiveKey(tx, m.id);
        const issued = existing ? null : await issueKey(tx, m.id, 'live', [...SCOPES]);
        // A merchant who signed up in the dashboard is shown the same key there, once.
        if (issued) await holdLiveKeyForDashboard(tx, secretsKey, m.id, issued.plaintext);
        const updated = await setMerchantStatus(tx, m.id, 'approved');
        return { ok: true as const, merchant: await viewMerchant(tx, updated), apiKey: issued?.plaintext ?? null };
      });
    },
  );

  app.post(
    '/merchants/:id/suspend',
    {
      schema: {
        tags,
        security,
        summary: 'Suspend a merchant: its keys answer 403 AccountNotApproved until re-approved',
        description: 'Money arriving for its open sessions becomes a late exception, for an operator to resolve.',
        params: merchantParams,
        response: { 200: z.object({ ok, merchant: merchantView }) },
      },
    },
    async (request) => {
      return db.transaction(async (tx) => {
        const m = await requireMerchant(tx, request.params.id, true);
        const updated = await setMerchantStatus(tx, m.id, 'suspended');
        return { ok: true as const, merchant: await viewMerchant(tx, updated) };
      });
    },
  );

  app.put(
    '/merchants/:id/wallets',
    {
      schema: {
        tags,
        security,
        summary: 'Set the settlement wallet for one (asset, network) pair',
        description: 'The address is checked for the network (EIP-55 checksum on EVM networks). New sessions for the pair settle there.',
        params: merchantParams,
        body: walletInput,
        response: { 200: z.object({ ok, wallet: walletView, merchant: merchantView }) },
      },
    },
    async (request) => {
      const [wallet] = checkWallets([request.body]);
      return db.transaction(async (tx) => {
        const m = await requireMerchant(tx, request.params.id, true);
        const w = await upsertWallet(tx, { merchantId: m.id, ...wallet! });
        return {
          ok: true as const,
          wallet: { asset: w.asset, network: w.network, address: w.address, updatedAt: w.updatedAt.toISOString() },
          merchant: await viewMerchant(tx, m),
        };
      });
    },
  );
};

export default adminMerchantRoutes;
