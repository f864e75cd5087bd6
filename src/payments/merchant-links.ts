import { findMerchant } from '../db/queries/merchants';
import { deactivatePaymentLink, findMerchantLink, listMerchantLinks, type MerchantLinkRow } from '../db/queries/payment-links';
import { AppError, notFound } from '../domain/errors';
import { isPaymentLinkId } from '../domain/ids';
import type { PaymentContext } from './context';
import { openPaymentLink, type PaymentLinkRequest } from './payment-links';
import { callTemporal } from './temporal-call';
import { recordAudit, type DashboardActor } from '../accounts/dashboard-audit';
import { formatFiatText } from '../domain/money';
import { linkDeactivatedSignal } from '../workflows/payment-link/messages';

// A merchant's payment links in the dashboard. A link is made by the same use case
// as the v1 API's POST /payment-links (the same rules of amount, currency, asset and network), and
// the merchant id is always the signed-in person's, so no id names another merchant's link.

/** How many links the dashboard lists, newest first. */
export const LINK_LIST_LIMIT = 200;

export function merchantLinks(ctx: PaymentContext) {
  async function own(merchantId: string, id: string): Promise<MerchantLinkRow> {
    const link = isPaymentLinkId(id) ? await findMerchantLink(ctx.db, merchantId, id) : undefined;
    if (!link) throw notFound('Payment link');
    return link;
  }

  return {
    list: (merchantId: string) => listMerchantLinks(ctx.db, merchantId, LINK_LIST_LIMIT),
    find: own,

    /** A new link, as the v1 API makes one, audited; a merchant not yet approved cannot be paid, so makes none. */
    async create(actor: DashboardActor, request: PaymentLinkRequest): Promise<MerchantLinkRow> {
      const merchant = await findMerchant(ctx.db, actor.merchantId);
      if (!merchant) throw notFound('Merchant');
      if (merchant.status !== 'approved') throw new AppError('Conflict', 'Your account is not approved yet: its links could not be paid.');
      const link = await openPaymentLink(ctx, merchant, request, (tx, row) =>
        recordAudit(tx, actor, 'payment_link.created', row.id, {
          amount: formatFiatText(row.amountMinor, row.currency),
          currency: row.currency,
          asset: row.destinationAsset,
          network: row.network,
          expiresAt: row.expiresAt.toISOString(),
        }),
      );
      return { ...link, sessions: 0, completed: 0 };
    },

    /**
     * Ends an active link now: its page takes no new session. Sessions customers already opened run
     * to their own end (money may be on its way), as after the link's own expiry. A paid link stays
     * paid (409). Postgres is what the page reads; the link's run is told so that it ends now (and
     * its search attribute says so). When Temporal cannot be reached the run still ends at the
     * original expiry, finding the link expired, so the deactivation stands either way.
     */
    async deactivate(actor: DashboardActor, id: string): Promise<MerchantLinkRow> {
      const { merchantId } = actor;
      const link = await own(merchantId, id);
      if (link.status === 'paid') throw new AppError('Conflict', 'This link was paid already.');
      // Audited only when this call ended it: a link already expired changes nothing.
      const ended = await ctx.db.transaction(async (tx) => {
        if (!(await deactivatePaymentLink(tx, merchantId, link.id))) return false;
        await recordAudit(tx, actor, 'payment_link.deactivated', link.id, { from: 'active', to: 'expired' });
        return true;
      });
      if (ended) {
        // Not an error for the merchant: the link is deactivated, only its run ends later (above).
        await callTemporal(ctx.temporal, link.id, () => ctx.temporal.workflow.getHandle(link.id).signal(linkDeactivatedSignal)).catch(
          () => undefined,
        );
      }
      return own(merchantId, id);
    },
  };
}
