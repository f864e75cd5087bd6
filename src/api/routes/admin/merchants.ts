import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database, DatabaseOrTransaction } from '../../../db/client';
import { findCurrentLiveKey, insertApiKey, listApiKeys, revokeApiKey, setKeyExpiry, type ApiKeyRow } from '../../../db/queries/api-keys';
import {
  findMerchant,
  insertMerchant,
  listMerchants,
  listWallets,
  lockMerchant,
  setMerchantStatus,
  setSecurityCodeHash,
  upsertWallet,
  type MerchantRow,
} from '../../../db/queries/merchants';
import { ASSETS, isSupportedPair, isWalletAddressFor, NETWORKS } from '../../../domain/assets';
import { issueLiveKey, issueSecurityCode, issueWebhookSecret } from '../../../domain/credentials';
import { encryptSecret } from '../../../domain/secretbox';
import { AppError, notFound, validationError } from '../../../domain/errors';
import { MERCHANT_ID, newMerchantId, randomBase62 } from '../../../domain/ids';
import { SCOPES, type Scope } from '../../../domain/scopes';

const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

const walletInput = z.strictObject({
  asset: z.string().transform((s) => s.toUpperCase()).pipe(z.enum(ASSETS)),
  network: z.string().transform((s) => s.toLowerCase()).pipe(z.enum(NETWORKS)),
  address: z.string().trim().min(1).max(128),
});
type WalletInput = z.output<typeof walletInput>;

const walletView = z.object({ asset: z.string(), network: z.string(), address: z.string(), updatedAt: z.string() });
const apiKeyView = z.object({
  id: z.string(),
  kind: z.enum(['live', 'restricted']),
  prefix: z.string(),
  last4: z.string(),
  scopes: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
const merchantView = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['pending_review', 'approved', 'suspended']),
  commissionBps: z.number().int(),
  createdAt: z.string(),
  approvedAt: z.string().nullable(),
  securityCodeRotatedAt: z.string(),
  wallets: z.array(walletView),
  apiKeys: z.array(apiKeyView),
});

const merchantParams = z.object({ id: z.string() });
const ok = z.literal(true);

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function viewKey(k: ApiKeyRow): z.infer<typeof apiKeyView> {
  return {
    id: k.id,
    kind: k.kind,
    prefix: k.displayPrefix,
    last4: k.last4,
    scopes: k.scopes,
    createdAt: k.createdAt.toISOString(),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    lastUsedAt: iso(k.lastUsedAt),
  };
}

async function viewMerchant(db: DatabaseOrTransaction, m: MerchantRow): Promise<z.infer<typeof merchantView>> {
  const [wallets, keys] = await Promise.all([listWallets(db, m.id), listApiKeys(db, m.id)]);
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    commissionBps: m.commissionBps,
    createdAt: m.createdAt.toISOString(),
    approvedAt: iso(m.approvedAt),
    securityCodeRotatedAt: m.securityCodeRotatedAt.toISOString(),
    wallets: wallets.map((w) => ({ asset: w.asset, network: w.network, address: w.address, updatedAt: w.updatedAt.toISOString() })),
    apiKeys: keys.map(viewKey),
  };
}

function checkWallets(wallets: WalletInput[]): void {
  const details = wallets.flatMap((w, i) => {
    if (!isSupportedPair(w.asset, w.network)) {
      return [{ path: `wallets.${i}`, message: `${w.asset} on ${w.network} is not a supported pair.` }];
    }
    if (!isWalletAddressFor(w.network, w.address)) {
      return [{ path: `wallets.${i}.address`, message: `Not a ${w.network} address.` }];
    }
    return [];
  });
  if (details.length) throw validationError(details, 'A wallet is not valid.');
}

async function requireMerchant(db: DatabaseOrTransaction, id: string, lock = false): Promise<MerchantRow> {
  if (!MERCHANT_ID.test(id)) throw notFound('Merchant');
  const m = lock ? await lockMerchant(db, id) : await findMerchant(db, id);
  if (!m) throw notFound('Merchant');
  return m;
}

const newKeyId = () => `key_${randomBase62(16)}`;

async function issueKey(db: DatabaseOrTransaction, merchantId: string, kind: 'live' | 'restricted', scopes: Scope[]) {
  const key = issueLiveKey();
  const row = await insertApiKey(db, {
    id: newKeyId(),
    merchantId,
    kind,
    keyHash: key.hash,
    displayPrefix: key.displayPrefix,
    last4: key.last4,
    scopes,
  });
  return { plaintext: key.plaintext, row };
}

const adminMerchantRoutes: FastifyPluginAsyncZod<{ db: Database; secretsKey: Buffer; now?: () => Date }> = async (
  app,
  { db, secretsKey, now = () => new Date() },
) => {
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  app.post(
    '/merchants',
    {
      schema: {
        tags,
        security,
        summary: 'Create a merchant (pending review)',
        body: z.strictObject({
          name: z.string().trim().min(1).max(200),
          commissionBps: z.number().int().min(0).max(10000).optional(),
          wallets: z.array(walletInput).max(20).optional(),
        }),
        response: { 201: z.object({ ok, merchant: merchantView, securityCode: z.string(), webhookSecret: z.string() }) },
      },
    },
    async (request, reply) => {
      const { name, commissionBps = 100, wallets = [] } = request.body;
      checkWallets(wallets);
      const code = issueSecurityCode();
      // Signs deliveries to a session's own webhookUrl; shown once, like the security code.
      const webhookSecret = issueWebhookSecret();
      const merchant = await db.transaction(async (tx) => {
        const m = await insertMerchant(tx, {
          id: newMerchantId(),
          name,
          commissionBps,
          securityCodeHash: code.hash,
          webhookSecretEncrypted: encryptSecret(secretsKey, webhookSecret),
        });
        for (const w of wallets) await upsertWallet(tx, { merchantId: m.id, ...w });
        return viewMerchant(tx, m);
      });
      return reply.status(201).send({ ok: true as const, merchant, securityCode: code.plaintext, webhookSecret });
    },
  );

  app.get(
    '/merchants',
    {
      schema: {
        tags,
        security,
        summary: 'List merchants, newest first',
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
    { schema: { tags, security, summary: 'Get a merchant', params: merchantParams, response: { 200: z.object({ ok, merchant: merchantView }) } } },
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

  app.post(
    '/merchants/:id/api-keys',
    {
      schema: {
        tags,
        security,
        summary: 'Issue a restricted key with a subset of scopes',
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

  app.put(
    '/merchants/:id/wallets',
    {
      schema: {
        tags,
        security,
        summary: 'Set the settlement wallet for one (asset, network) pair',
        params: merchantParams,
        body: walletInput,
        response: { 200: z.object({ ok, wallet: walletView, merchant: merchantView }) },
      },
    },
    async (request) => {
      checkWallets([request.body]);
      return db.transaction(async (tx) => {
        const m = await requireMerchant(tx, request.params.id, true);
        const w = await upsertWallet(tx, { merchantId: m.id, ...request.body });
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
