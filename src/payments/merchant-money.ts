import type { Mailer } from '../mail/mailer';
import { walletChangeMail } from '../mail/wallet-change-mail';
import { ownerEmails } from '../db/queries/dashboard';
import {
  dailyVolume,
  listMerchantPayouts,
  openExceptionCount,
  paymentsByStatus,
  payoutPayments,
  type MerchantPayoutRow,
  type PayoutPayment,
} from '../db/queries/merchant-money';
import { lastSettlementPayoutAt } from '../db/queries/settlement-payouts';
import { findMerchant, listWallets, lockMerchant, updatePayoutSettings, upsertWallet, type WalletRow } from '../db/queries/merchants';
import { payoutDue, type PayoutSchedule } from '../domain/balances';
import { nextPayoutAt, payoutRequested } from '../domain/next-payout';
import { formatCrypto } from '../domain/money';
import { recordAudit, type DashboardActor } from '../accounts/dashboard-audit';
import { merchantBalances, type NetworkBalance } from './merchant-settlements';
import { merchantTopUpAddresses, type TopUpAddress } from './top-ups';
import { settledTransactions } from '../db/queries/settlements';
import { NETWORK_NAMES, type Network } from '../domain/assets';
import { AppError, notFound } from '../domain/errors';
import { isPayoutId } from '../domain/ids';
import { decodeListCursor, encodeListCursor, type PaymentListPosition } from '../domain/payment-list';
import { PAYOUT_COLUMNS, payoutCells } from '../domain/payouts-csv';
import { csvLine } from '../domain/csv';
import { homePeriods, homeVolume } from '../domain/merchant-home';
import type { PaymentContext } from './context';
import type { WalletChoice } from './admin-merchants';

// A merchant's money in the dashboard: settlement wallets, payouts, settlements and
// the home page's figures. The merchant id is the signed-in person's; nothing here takes another.

/** A page of payouts: what was asked for, within the bounds of the payment list's pages. */
export const PAYOUT_LIST_DEFAULT_LIMIT = 50;
export const PAYOUT_LIST_MAX_LIMIT = 100;
/** Rows read per query while exporting: the file streams out as it is read, whatever its length. */
const PAYOUT_EXPORT_PAGE = 1000;

/** A payout with the payments it paid (their shares). */
export type MerchantPayout = MerchantPayoutRow & { payments: PayoutPayment[] };

export interface PayoutListPage {
  items: MerchantPayout[];
  /** Hand back for the next page; null on the last one. */
  nextCursor: string | null;
}

/** When a settlement run may pay a balance next (domain/next-payout.ts). */
export interface NextPayout {
  /** The next run may pay (the schedule is due, or a payout was asked for): `at` is the time of this read. */
  due: boolean;
  /** null: only when asked for (manual). */
  at: Date | null;
  /** A payout was asked for since the last one: the next run pays it, whatever the schedule and the minimum. */
  requested: boolean;
}

/** A balance in one network and asset, and when a settlement run may pay it next. */
export type PayoutBalance = NetworkBalance & { nextPayout: NextPayout };

/** When a merchant's available balance is paid out, and what it is (batched settlement, docs/settlement.md). */
export interface PayoutSettings {
  schedule: PayoutSchedule;
  minimumMicro: bigint;
  requestedAt: Date | null;
  balances: PayoutBalance[];
  /** The earliest of the balances' next payouts; with no balance yet, the schedule's own. */
  nextPayout: NextPayout;
  /** PAYOUT_INTERVAL_SECONDS: the next run comes within this. */
  payoutIntervalSeconds: number;
  topUpAddresses: TopUpAddress[];
}

export function merchantMoney(ctx: Pick<PaymentContext, 'db' | 'now' | 'config'>, mailer: Mailer) {
  /** The merchant's balances per network and asset, and when and how much their payouts pay (batched settlement). */
  async function payoutSettings(merchantId: string): Promise<PayoutSettings> {
    const merchant = await findMerchant(ctx.db, merchantId);
    if (!merchant) throw notFound('Merchant');
    const now = ctx.now();
    // Each balance is paid on its own, its schedule counted from its own last payout, as the runs' planner counts it.
    const next = (lastPayoutAt: Date | null): NextPayout => {
      const requested = payoutRequested(merchant.payoutRequestedAt, lastPayoutAt);
      const input = { schedule: merchant.payoutSchedule, lastPayoutAt, now, requested };
      return { due: payoutDue(input), at: nextPayoutAt(input), requested };
    };
    const balances = await Promise.all(
      (await merchantBalances(ctx, merchantId)).map(async (b) => ({
        ...b,
        nextPayout: next(await lastSettlementPayoutAt(ctx.db, { merchantId, network: b.network, asset: b.asset })),
      })),
    );
    // The soonest (a due balance's is now); none has one under a manual schedule with nothing asked for.
    const [soonest] = balances
      .map((b) => b.nextPayout)
      .filter((n) => n.at !== null)
      .sort((x, y) => x.at!.getTime() - y.at!.getTime());
    return {
      schedule: merchant.payoutSchedule,
      minimumMicro: merchant.payoutMinimumMicro,
      requestedAt: merchant.payoutRequestedAt,
      balances,
      nextPayout: balances.length === 0 ? next(null) : (soonest ?? { due: false, at: null, requested: false }),
      payoutIntervalSeconds: ctx.config.chains.settlement.intervalSeconds,
      topUpAddresses: await merchantTopUpAddresses(ctx, merchantId),
    };
  }

  return {
    wallets: (merchantId: string) => listWallets(ctx.db, merchantId),

    /**
     * Sets the wallet for a pair (the address already checked for its network), audited with the
     * address before and after, and tells every owner. The mail goes out inside the change's
     * transaction: when it cannot be sent, nothing changes, its audit line neither (a change nobody is
     * told of is what this mail is there to prevent).
     */
    async setWallet(actor: DashboardActor, wallet: WalletChoice): Promise<WalletRow> {
      const { merchantId } = actor;
      return ctx.db.transaction(async (tx) => {
        const merchant = await lockMerchant(tx, merchantId);
        if (!merchant) throw notFound('Merchant');
        const previous = (await listWallets(tx, merchantId)).find((w) => w.asset === wallet.asset && w.network === wallet.network);
        const row = await upsertWallet(tx, { merchantId, ...wallet });
        if (previous?.address === row.address) return row;
        await recordAudit(tx, actor, 'wallet.changed', null, {
          asset: row.asset,
          network: row.network,
          from: previous?.address ?? null,
          to: row.address,
        });
        const mail = walletChangeMail({
          merchant: merchant.name,
          asset: wallet.asset,
          network: NETWORK_NAMES[wallet.network as Network] ?? wallet.network,
          previous: previous?.address ?? null,
          address: row.address,
          changedBy: actor.email,
          at: row.updatedAt,
          dashboardUrl: `${ctx.config.http.publicBaseUrl}/dashboard`,
        });
        try {
          for (const to of await ownerEmails(tx, merchantId)) await mailer.send(to, mail.subject, mail.text);
        } catch {
          throw new AppError(
            'Unavailable',
            'The owners could not be told of the change by mail, so the wallet was not changed. Please retry.',
          );
        }
        return row;
      });
    },

    payoutSettings,

    /** Sets when payouts go and the least one pays; audited. */
    async setPayoutSettings(actor: DashboardActor, settings: { schedule: PayoutSchedule; minimumMicro: bigint }): Promise<PayoutSettings> {
      await ctx.db.transaction(async (tx) => {
        const merchant = await lockMerchant(tx, actor.merchantId);
        if (!merchant) throw notFound('Merchant');
        await updatePayoutSettings(tx, actor.merchantId, { payoutSchedule: settings.schedule, payoutMinimumMicro: settings.minimumMicro });
        await recordAudit(tx, actor, 'payout_settings.changed', null, {
          schedule: settings.schedule,
          minimum: formatCrypto(settings.minimumMicro),
          was: { schedule: merchant.payoutSchedule, minimum: formatCrypto(merchant.payoutMinimumMicro) },
        });
      });
      return payoutSettings(actor.merchantId);
    },

    /** Pays what is available at the next run, whatever the schedule and the minimum; audited. */
    async requestPayout(actor: DashboardActor): Promise<PayoutSettings> {
      await ctx.db.transaction(async (tx) => {
        await updatePayoutSettings(tx, actor.merchantId, { payoutRequestedAt: ctx.now() });
        await recordAudit(tx, actor, 'payout.requested');
      });
      return payoutSettings(actor.merchantId);
    },

    /** One page of the merchant's payouts, newest first, paged by the cursor the previous page handed out. */
    async payouts(merchantId: string, page: { cursor?: string | undefined; limit?: number | undefined } = {}): Promise<PayoutListPage> {
      const limit = Math.min(Math.max(page.limit ?? PAYOUT_LIST_DEFAULT_LIMIT, 1), PAYOUT_LIST_MAX_LIMIT);
      const after = page.cursor ? decodeListCursor(page.cursor, isPayoutId) : undefined;
      // One row more than asked says whether there is a next page without a count.
      const rows = await listMerchantPayouts(ctx.db, merchantId, { after, limit: limit + 1 });
      const shown = rows.slice(0, limit);
      const paid = await payoutPayments(
        ctx.db,
        merchantId,
        shown.map((p) => p.id),
      );
      // A payout from before settlement runs has no items: it paid its own payment alone.
      const items = shown.map((p) => ({ ...p, payments: paid.get(p.id) ?? [{ paymentId: p.paymentId, amountMicro: p.amountMicro }] }));
      const last = items.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeListCursor({ at: last.position, id: last.id }) : null };
    },

    /** Every payout of the merchant as CSV lines, header first, read a page at a time. */
    async *payoutsCsv(merchantId: string): AsyncGenerator<string> {
      yield csvLine(PAYOUT_COLUMNS);
      let after: PaymentListPosition | undefined;
      for (;;) {
        const rows = await listMerchantPayouts(ctx.db, merchantId, { after, limit: PAYOUT_EXPORT_PAGE });
        if (rows.length > 0) yield rows.map((r) => csvLine(payoutCells(r))).join('');
        if (rows.length < PAYOUT_EXPORT_PAGE) return;
        const last = rows.at(-1)!;
        after = { at: last.position, id: last.id };
      }
    },

    /** Settled transactions (merchant payout confirmed in [from, to)): the operator's settlements CSV's rows. */
    settlements: (merchantId: string, from: Date, to: Date) => settledTransactions(ctx.db, { merchantId, from, to }),

    async home(merchantId: string) {
      const merchant = await findMerchant(ctx.db, merchantId);
      if (!merchant) throw notFound('Merchant');
      const periods = homePeriods(ctx.now());
      const [volume, byStatus, openExceptions] = await Promise.all([
        dailyVolume(ctx.db, merchantId, periods.readFrom),
        paymentsByStatus(ctx.db, merchantId),
        openExceptionCount(ctx.db, merchantId),
      ]);
      return { ...homeVolume(volume, periods), byStatus, openExceptions };
    },
  };
}
export type MerchantMoney = ReturnType<typeof merchantMoney>;
