import { findMerchant } from '../db/queries/merchants';
import { findPaymentLink, insertPaymentLink, type PaymentLinkRow } from '../db/queries/payment-links';
import { isFiatCurrency } from '../domain/currencies';
import { AppError, type ErrorDetail } from '../domain/errors';
import { isPaymentLinkId, newPaymentLinkId } from '../domain/ids';
import { formatFiat } from '../domain/money';
import { PAYMENT_LINK_WORKFLOW, type PaymentLinkInput } from '../workflows/payment-link/messages';
import { MerchantIdKey, OrderIdKey, PaymentStatusKey } from '../workflows/search-attributes';
import { parseFiat } from './amounts';
import { openCheckoutSession, settlementWallet, type PayingMerchant } from './checkout-sessions';
import type { PaymentContext } from './context';
import { ensurePaymentsEnabled } from './kill-switch';
import { ensureLinkNotInProgress } from './link-tabs';
import { MerchantNotAccepting } from './session-standing';
import { countLinkSession } from './link-session-limits';
import { findCheckoutSession } from './checkout-actions';
import { openPayment } from './open-payment';
import type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
import type { DatabaseOrTransaction } from '../db/client';

export interface PaymentLinkRequest {
  amount: number;
  currency: string;
  destinationAsset?: string | undefined;
  network?: string | undefined;
  description?: string | undefined;
  merchantOrderId?: string | undefined;
  expiresInMinutes: number;
}

/**
 * A shareable link: the same rules its sessions will meet, so a link that exists can be
 * paid. `alongside` writes in the row's own transaction (the dashboard's audit line), so a link
 * never exists without it.
 */
export async function openPaymentLink(
  ctx: PaymentContext,
  merchant: PayingMerchant,
  request: PaymentLinkRequest,
  alongside?: (tx: DatabaseOrTransaction, link: PaymentLinkRow) => Promise<void>,
): Promise<PaymentLinkRow> {
  const details: ErrorDetail[] = [];
  const fiat = parseFiat(ctx.config.checkout, request.amount, request.currency, details);
  const wallet = await settlementWallet(ctx, merchant.id, request.destinationAsset, request.network, details);
  if (details.length > 0 || !fiat) throw new AppError('ValidationError', 'The payment link is not valid.', { details });
  await ensurePaymentsEnabled(ctx.db);

  const id = newPaymentLinkId();
  const expiresAt = new Date(ctx.now().getTime() + request.expiresInMinutes * 60_000);
  const input: PaymentLinkInput = { linkId: id, expiresAt: expiresAt.toISOString() };
  return openPayment(ctx, {
    workflowType: PAYMENT_LINK_WORKFLOW,
    workflowId: id,
    args: [input],
    searchAttributes: [
      { key: MerchantIdKey, value: merchant.id },
      { key: PaymentStatusKey, value: 'active' },
      ...(request.merchantOrderId ? [{ key: OrderIdKey, value: request.merchantOrderId }] : []),
    ],
    insert: () =>
      ctx.db.transaction(async (tx) => {
        const link = await insertPaymentLink(tx, {
          id,
          merchantId: merchant.id,
          amountMinor: fiat.minor,
          currency: fiat.currency,
          destinationAsset: wallet.asset,
          network: wallet.network,
          description: request.description ?? null,
          merchantOrderId: request.merchantOrderId ?? null,
          expiresAt,
        });
        await alongside?.(tx, link);
        return link;
      }),
  });
}

export async function findLink(ctx: PaymentContext, id: string): Promise<PaymentLinkRow | undefined> {
  return isPaymentLinkId(id) ? findPaymentLink(ctx.db, id) : undefined;
}

/** Its workflow expires the link at expiresAt; until that has run, the clock already says so. */
export const linkStatus = (link: PaymentLinkRow, now: Date) =>
  link.status === 'active' && link.expiresAt <= now ? 'expired' : link.status;

/** Who pressed Pay: the client address the limits count, and the session this browser opened before, if it says so. */
export interface LinkVisitor {
  clientAddress: string;
  previousSessionId?: string | undefined;
}

/**
 * The visitor's own open session of this link in the same country, if any: pressing Pay again from
 * the same browser goes back to it rather than opening another. Another country is a new session
 * (the country chooses the provider); the old one ends with the link as any other.
 */
async function visitorsOpenSession(
  ctx: PaymentContext,
  link: PaymentLinkRow,
  countryCode: string,
  sessionId: string | undefined,
): Promise<CheckoutSessionRow | undefined> {
  const session = sessionId ? await findCheckoutSession(ctx, sessionId) : undefined;
  if (!session || session.paymentLinkId !== link.id || session.countryCode !== countryCode.toUpperCase()) return undefined;
  const open = (session.status === 'pending' || session.status === 'processing') && session.expiresAt > ctx.now();
  return open ? session : undefined;
}

/**
 * The link page's Pay: a checkout session for the link's merchant and terms in the customer's
 * country. Paid at most once and never after expiry: no session is opened for a closed link, nor
 * for a merchant that is not approved. The visitor's own open session is reused; new sessions are
 * rate limited per link and per client address (link-session-limits.ts).
 */
export async function payLink(
  ctx: PaymentContext,
  link: PaymentLinkRow,
  countryCode: string,
  visitor: LinkVisitor,
): Promise<{ session: CheckoutSessionRow; reused: boolean }> {
  if (linkStatus(link, ctx.now()) !== 'active') throw new AppError('Conflict', 'This payment link can no longer be paid.');
  const owner = await findMerchant(ctx.db, link.merchantId);
  if (!owner || owner.status !== 'approved') throw new MerchantNotAccepting();
  if (!isFiatCurrency(link.currency)) throw new Error(`unknown currency ${link.currency}`);
  const own = await visitorsOpenSession(ctx, link, countryCode, visitor.previousSessionId);
  if (own) return { session: own, reused: true };
  await ensureLinkNotInProgress(ctx, link.id, null);
  await ensurePaymentsEnabled(ctx.db);
  await countLinkSession(ctx, link.id, visitor.clientAddress);
  const session = await openCheckoutSession(
    ctx,
    owner,
    {
      // The stored amount as the decimal text checkout parses back to the same minor units: no float in between.
      amount: formatFiat(link.amountMinor, link.currency),
      currency: link.currency,
      countryCode,
      destinationAsset: link.destinationAsset,
      network: link.network,
      merchantOrderId: link.merchantOrderId ?? undefined,
      paymentLinkId: link.id,
    },
    'payment_link',
  );
  return { session, reused: false };
}
