import type { DatabaseOrTransaction } from '../db/client';
import { findCurrentLiveKey, listApiKeys } from '../db/queries/api-keys';
import {
  findMerchant,
  listMerchants,
  listWallets,
  lockMerchant,
  setMerchantStatus,
  updatePayoutSettings,
  upsertWallet,
  type MerchantRow,
} from '../db/queries/merchants';
import { settledTransactions } from '../db/queries/settlements';
import { listEndpoints } from '../db/queries/webhook-endpoints';
import { ownerEmails } from '../db/queries/dashboard';
import { approvalMail } from '../mail/approval-mail';
import { AppError, notFound } from '../domain/errors';
import { MERCHANT_ID } from '../domain/ids';
import { SCOPES as SCOPES_ALL, type Scope } from '../domain/scopes';
import type { PaymentContext } from './context';
import { queueNotice } from '../accounts/merchant-notices';
import {
  addWebhookEndpoint,
  changeEndpoint,
  holdLiveKeyForDashboard,
  issueKey,
  issueRestrictedKey,
  openMerchant,
  revokeKey,
  rotateLiveKey,
  rotateSecurityCode,
  type EndpointChange,
  type EndpointInput,
} from '../accounts/merchant-credentials';

/** A merchant by id (locked for update when asked); a malformed or unknown id is 404 Merchant. */
export async function requireMerchant(db: DatabaseOrTransaction, id: string, lock = false): Promise<MerchantRow> {
  if (!MERCHANT_ID.test(id)) throw notFound('Merchant');
  const m = lock ? await lockMerchant(db, id) : await findMerchant(db, id);
  if (!m) throw notFound('Merchant');
  return m;
}

export { ROTATION_GRACE_MS } from '../accounts/merchant-credentials';

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

/** Operators' use cases on merchants: onboarding, status, wallets, keys, webhook endpoints, settlements. */
export function adminMerchants(ctx: PaymentContext) {
  const db = ctx.db;
  return {
    requireMerchant: (id: string) => requireMerchant(db, id),
    merchant: async (id: string) => detail(db, await requireMerchant(db, id)),
    list: async (limit: number) => Promise.all((await listMerchants(db, limit)).map((m) => detail(db, m))),
    /** A new merchant, its security code and default webhook secret (each shown once). */
    async create(input: { name: string; commissionBps: number; wallets: WalletChoice[] }) {
      return db.transaction(async (tx) => {
        const opened = await openMerchant(tx, ctx.config.secretsKey, input);
        for (const w of input.wallets) await upsertWallet(tx, { merchantId: opened.merchant.id, ...w });
        return { ...opened, merchant: await detail(tx, opened.merchant) };
      });
    },
    /**
     * Approves; the live key is issued on first approval only (re-approval reinstates the existing
     * keys). The merchant's owners (their confirmed addresses) are told by mail: the mail is written
     * to the outbox in the approval's transaction and sent by the worker's mail sender, so the answer
     * never waits for SMTP and a mail SMTP refuses is retried, then kept as failed for an operator.
     */
    approve: (id: string) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        if (m.status === 'approved') {
          throw new AppError('Conflict', 'The merchant is already approved; rotate the key to get a new one.');
        }
        const existing = await findCurrentLiveKey(tx, m.id);
        const issued = existing ? null : await issueKey(tx, m.id, 'live', [...SCOPES_ALL]);
        // A merchant who signed up in the dashboard is shown the same key there, once.
        if (issued) await holdLiveKeyForDashboard(tx, ctx.config.secretsKey, m.id, issued.plaintext);
        const updated = await setMerchantStatus(tx, m.id, 'approved');
        if (ctx.config.mail.smtpUrl) {
          const mail = approvalMail({
            merchant: updated.name,
            keyWaiting: issued !== null,
            dashboardUrl: `${ctx.config.http.publicBaseUrl}/dashboard`,
          });
          await queueNotice(tx, m.id, await ownerEmails(tx, m.id), mail);
        }
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
    /**
     * What settlement runs keep back in the merchant's reserve (per network and asset) before paying
     * out: filled at its next payouts, its excess paid out when lowered (docs/settlement.md).
     */
    setReserveTarget: (id: string, reserveTargetMicro: bigint) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        return detail(tx, (await updatePayoutSettings(tx, m.id, { reserveTargetMicro }))!);
      }),
    /** The merchant's available balance paid out by the next run, whatever its schedule and minimum. */
    requestPayout: (id: string) =>
      db.transaction(async (tx) => {
        const m = await requireMerchant(tx, id, true);
        return detail(tx, (await updatePayoutSettings(tx, m.id, { payoutRequestedAt: ctx.now() }))!);
      }),
    /** Revokes one key at once; a key of another merchant (or none) is 404. */
    async revokeKey(id: string, keyId: string) {
      const m = await requireMerchant(db, id);
      return { merchantId: m.id, key: await revokeKey(db, m.id, keyId) };
    },
    issueRestrictedKey: (id: string, scopes: Scope[]) =>
      db.transaction(async (tx) => issueRestrictedKey(tx, (await requireMerchant(tx, id)).id, scopes)),
    /** A new live key; the current one keeps working for ROTATION_GRACE_MS. */
    rotateLiveKey: (id: string) => db.transaction(async (tx) => rotateLiveKey(tx, (await requireMerchant(tx, id, true)).id, ctx.now())),
    /** A new security code; the old one stops working at once. */
    rotateSecurityCode: (id: string) => db.transaction(async (tx) => rotateSecurityCode(tx, (await requireMerchant(tx, id, true)).id)),
    /** Settled transactions (merchant payout confirmed in [from, to)), for the settlements CSV. */
    settledTransactions: (merchantId: string, from: Date, to: Date) => settledTransactions(ctx.db, { merchantId, from, to }),
    /** An endpoint of the merchant's; its signing secret is answered once. */
    addEndpoint: (merchantId: string, input: EndpointInput) => addWebhookEndpoint(db, ctx.config, merchantId, input),
    listEndpoints: (merchantId: string) => listEndpoints(ctx.db, merchantId),
    changeEndpoint: (merchantId: string, endpointId: string, change: EndpointChange) =>
      changeEndpoint(ctx.db, { merchantId, endpointId, change }),
  };
}
