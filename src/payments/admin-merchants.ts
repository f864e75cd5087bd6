import type { DatabaseOrTransaction } from '../db/client';
import { findCurrentLiveKey, insertApiKey, listApiKeys, revokeApiKey, setKeyExpiry } from '../db/queries/api-keys';
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
} from '../db/queries/merchants';
import { settledTransactions } from '../db/queries/settlements';
import { deleteEndpoint, insertEndpoint, listEndpoints, setEndpointEnabled } from '../db/queries/webhooks';
import { issueLiveKey, issueSecurityCode, issueWebhookSecret } from '../domain/credentials';
import { AppError, notFound } from '../domain/errors';
import { MERCHANT_ID, newMerchantId, randomBase62 } from '../domain/ids';
import { SCOPES as SCOPES_ALL, type Scope } from '../domain/scopes';
import { encryptSecret } from '../domain/secretbox';
import type { PaymentContext } from './context';

/** A merchant by id (locked for update when asked); a malformed or unknown id is 404 Merchant. */
export async function requireMerchant(db: DatabaseOrTransaction, id: string, lock = false): Promise<MerchantRow> {
  if (!MERCHANT_ID.test(id)) throw notFound('Merchant');
  const m = lock ? await lockMerchant(db, id) : await findMerchant(db, id);
  if (!m) throw notFound('Merchant');
  return m;
}

/** How long a rotated live key keeps working beside its successor. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** A wallet already checked for its network (the route's checkWallets). */
export interface WalletChoice {
  asset: string;
  network: string;
  address: string;
}

/** A merchant with what operators see of it: wallets and keys (never a key, hash or secret in a view). */
async function detail(db: DatabaseOrTransaction, merchant: MerchantRow) {
  const [wallets, apiKeys] = await Promise.all([listWallets(db, merchant.id), listApiKeys(db, merchant.id)]);
  return { merchant, wallets, apiKeys };
}
export type MerchantDetail = Awaited<ReturnType<typeof detail>>;

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

/** Operators' use cases on merchants: onboarding, status, wallets, keys, webhook endpoints, settlements. */
export function adminMerchants(ctx: PaymentContext) {
  const db = ctx.db;
  return {
    requireMerchant: (id: string) => requireMerchant(db, id),
    merchant: async (id: string) => detail(db, await requireMerchant(db, id)),
    list: async (limit: number) => Promise.all((await listMerchants(db, limit)).map((m) => detail(db, m))),
    /** A new merchant, its security code and default webhook secret (each shown once). */
    async create(input: { name: string; commissionBps: number; wallets: WalletChoice[] }) {
      const code = issueSecurityCode();
      // Signs deliveries to a session's own webhookUrl; shown once, like the security code.
      const webhookSecret = issueWebhookSecret();
      const merchant = await db.transaction(async (tx) => {
        const m = await insertMerchant(tx, {
          id: newMerchantId(),
          name: input.name,
          commissionBps: input.commissionBps,
          securityCodeHash: code.hash,
          webhookSecretEncrypted: encryptSecret(ctx.config.secretsKey, webhookSecret),
        });
        for (const w of input.wallets) await upsertWallet(tx, { merchantId: m.id, ...w });
        return detail(tx, m);
      });
      return { merchant, securityCode: code.plaintext, webhookSecret };
    },
    /** Approves; the live key is issued on first approval only (re-approval reinstates the existing keys). */
    approve: (id: string) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        if (m.status === 'approved') {
          throw new AppError('Conflict', 'The merchant is already approved; rotate the key to get a new one.');
        }
        const existing = await findCurrentLiveKey(tx, m.id);
        const issued = existing ? null : await issueKey(tx, m.id, 'live', [...SCOPES_ALL]);
        const updated = await setMerchantStatus(tx, m.id, 'approved');
        return { merchant: await detail(tx, updated), apiKey: issued?.plaintext ?? null };
      }),
    suspend: (id: string) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        return detail(tx, await setMerchantStatus(tx, m.id, 'suspended'));
      }),
    setWallet: (id: string, wallet: WalletChoice) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        const w = await upsertWallet(tx, { merchantId: m.id, ...wallet });
        return { wallet: w, merchant: await detail(tx, m) };
      }),
    /** Revokes one key at once; a key of another merchant (or none) is 404. */
    async revokeKey(id: string, keyId: string) {
      const m = await requireMerchant(db, id);
      const key = await revokeApiKey(db, m.id, keyId);
      if (!key) throw notFound('API key');
      return { merchantId: m.id, key };
    },
    issueRestrictedKey: (id: string, scopes: Scope[]) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        if (m.status !== 'approved') throw new AppError('Conflict', 'Keys are issued only to approved merchants.');
        return issueKey(tx, m.id, 'restricted', [...new Set(scopes)]);
      }),
    /** A new live key; the current one keeps working for ROTATION_GRACE_MS. */
    rotateLiveKey: (id: string) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        const current = await findCurrentLiveKey(tx, m.id);
        if (!current) throw new AppError('Conflict', 'The merchant has no live key yet; approve it first.');
        const expiresAt = new Date(ctx.now().getTime() + ROTATION_GRACE_MS);
        await setKeyExpiry(tx, current.id, expiresAt);
        const issued = await issueKey(tx, m.id, 'live', current.scopes as Scope[]);
        return { apiKey: issued.plaintext, previousKeyExpiresAt: expiresAt };
      }),
    /** A new security code; the old one stops working at once. */
    rotateSecurityCode: (id: string) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        const code = issueSecurityCode();
        await setSecurityCodeHash(tx, m.id, code.hash);
        return code.plaintext;
      }),
    /** Settled transactions (merchant payout confirmed in [from, to)), for the settlements CSV. */
    settledTransactions: (merchantId: string, from: Date, to: Date) => settledTransactions(ctx.db, { merchantId, from, to }),
    addEndpoint: (row: { id: string; merchantId: string; url: string; secretEncrypted: string }) => insertEndpoint(ctx.db, row),
    listEndpoints: (merchantId: string) => listEndpoints(ctx.db, merchantId),
    setEndpointEnabled: (input: { merchantId: string; endpointId: string; enabled: boolean }) => setEndpointEnabled(ctx.db, input),
    deleteEndpoint: (input: { merchantId: string; endpointId: string }) => deleteEndpoint(ctx.db, input),
  };
}
