import type { Mailer } from '../mail/mailer';
import { walletChangeMail } from '../mail/wallet-change-mail';
import { ownerEmails } from '../db/queries/dashboard';
import { dailyVolume, listMerchantPayouts, openExceptionCount, paymentsByStatus } from '../db/queries/merchant-money';
import { findMerchant, listWallets, lockMerchant, upsertWallet, type WalletRow } from '../db/queries/merchants';
import { settledTransactions } from '../db/queries/settlements';
import { NETWORK_NAMES, type Network } from '../domain/assets';
import { AppError, notFound } from '../domain/errors';
import { homePeriods, homeVolume } from '../domain/merchant-home';
import type { PaymentContext } from './context';
import type { WalletChoice } from './admin-merchants';

// Issue 29 item 5: a merchant's money in the dashboard: settlement wallets, payouts, settlements and
// the home page's figures. The merchant id is the signed-in person's; nothing here takes another.

/** Payouts listed (and exported) at most, newest first. */
export const PAYOUT_LIST_LIMIT = 500;

export function merchantMoney(ctx: Pick<PaymentContext, 'db' | 'now' | 'config'>, mailer: Mailer) {
  return {
    wallets: (merchantId: string) => listWallets(ctx.db, merchantId),

    /**
     * Sets the wallet for a pair (the address already checked for its network) and tells every owner.
     * The mail goes out inside the change's transaction: when it cannot be sent, nothing changes
     * (a change nobody is told of is what this mail is there to prevent).
     */
    async setWallet(merchantId: string, wallet: WalletChoice, changedBy: string): Promise<WalletRow> {
      return ctx.db.transaction(async (tx) => {
        const merchant = await lockMerchant(tx, merchantId);
        if (!merchant) throw notFound('Merchant');
        const previous = (await listWallets(tx, merchantId)).find((w) => w.asset === wallet.asset && w.network === wallet.network);
        const row = await upsertWallet(tx, { merchantId, ...wallet });
        if (previous?.address === row.address) return row;
        const mail = walletChangeMail({
          merchant: merchant.name,
          asset: wallet.asset,
          network: NETWORK_NAMES[wallet.network as Network] ?? wallet.network,
          previous: previous?.address ?? null,
          address: row.address,
          changedBy,
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

    payouts: (merchantId: string) => listMerchantPayouts(ctx.db, merchantId, PAYOUT_LIST_LIMIT),

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
