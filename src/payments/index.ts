import type { PageLocale } from '../domain/locales';
import type { PaymentContext } from './context';
import { cancelCheckoutSession, expireCheckoutSession, findCheckoutSession, startCheckoutPayment } from './checkout-actions';
import { openCheckoutSession, type CheckoutRequest, type PayingMerchant } from './checkout-sessions';
import { listCheckoutSessions, type CheckoutSessionListQuery } from './checkout-session-list';
import { findSettlement, listSettlements, merchantBalances } from './merchant-settlements';
import { merchantTopUpAddresses } from './top-ups';
import { openDirectDeposit } from './direct-deposit';
import { ensurePaymentsEnabled, killSwitch } from './kill-switch';
import { findLink, linkStatus, openPaymentLink, payLink, type LinkVisitor, type PaymentLinkRequest } from './payment-links';
import { ingestProviderEvent } from './provider-events';
import { paymentProof } from './payment-proof';
import { paymentOptions } from './rails';
import { chooseRail, loadSimpleOrder, openSimpleOrder, payoutFees, type SimpleCheckoutBody } from './simple-orders';
import { merchantTakesPayments, sessionStanding } from './session-standing';
import { resendDelivery, sendTestEvent, sweepOrphanedDeliveries } from './webhook-deliveries';
import { acceptException, listExceptions, refundException } from './exception-actions';
import { refundPayment } from './payment-refunds';
import { refundAddressAsk, saveRefundAddress } from './refund-addresses';
import { receiptEmailAsk, saveReceiptEmail } from './receipt-emails';
import { listPayouts, retryPayout } from './payout-actions';
import { paymentLookups } from './payment-lookups';
import { adminLookups } from './admin-lookups';
import { hostedPageReads } from './hosted-pages';
import { adminMerchants } from './admin-merchants';
import { merchantPayments } from './merchant-payments';
import { merchantPaymentDetail } from './payment-detail';
import { merchantLinks } from './merchant-links';
import { reconcile } from './reconciliation';
import { recordTreasuryFunding } from './treasury-fundings';
import { deliveryReads } from './webhook-deliveries';
import { findOwnSite } from './plugin-credentials';
import { merchantEvents } from './merchant-events';
import type { PayoutRow } from '../db/queries/payouts';
import type { ExceptionStatus } from '../domain/exceptions';
import type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
import type { PaymentLinkRow } from '../db/queries/payment-links';
import type { SimpleOrderRow } from '../db/queries/simple-orders';

export type { PaymentContext } from './context';
export type { CheckoutRequest, PayingMerchant } from './checkout-sessions';
export type { PaymentOption } from './rails';
export type { DirectDeposit } from './direct-deposit';
export type { RefundAddressAsk } from './refund-addresses';
export type { ReceiptEmailAsk } from './receipt-emails';
export type { PaymentProof } from './payment-proof';
export type { MerchantEvent } from './merchant-events';
export { CallbackRefused, CallbackTermsMismatch } from './provider-events';
export { LinkPaymentInProgress } from './link-tabs';
export { LinkAlreadyPaid, MerchantNotAccepting, type SessionStanding } from './session-standing';

/**
 * The payment engine's use cases, built once from their dependencies and handed to every face
 * (merchant API v1, plugin, payment links, simple API, hosted pages, provider callbacks), so a rule
 * of money is written once.
 */
export function createPaymentService(ctx: PaymentContext) {
  return {
    context: ctx,
    ensurePaymentsEnabled: () => ensurePaymentsEnabled(ctx.db),
    openCheckoutSession: (merchant: PayingMerchant, request: CheckoutRequest, source?: CheckoutSessionRow['source']) =>
      openCheckoutSession(ctx, merchant, request, source),
    findCheckoutSession: (id: string) => findCheckoutSession(ctx, id),
    startCheckoutPayment: (id: string) => startCheckoutPayment(ctx, id),
    sessionStanding: (session: CheckoutSessionRow) => sessionStanding(ctx, session),
    refundAddressAsk: (session: CheckoutSessionRow) => refundAddressAsk(ctx, session),
    saveRefundAddress: (id: string, address: string) => saveRefundAddress(ctx, id, address),
    receiptEmailAsk: (session: CheckoutSessionRow) => receiptEmailAsk(ctx, session),
    saveReceiptEmail: (id: string, email: string, locale: PageLocale) => saveReceiptEmail(ctx, id, email, locale),
    merchantTakesPayments: (merchantId: string) => merchantTakesPayments(ctx, merchantId),
    cancelCheckoutSession: (id: string) => cancelCheckoutSession(ctx, id),
    expireCheckoutSession: (merchantId: string, id: string) => expireCheckoutSession(ctx, merchantId, id),
    listCheckoutSessions: (merchantId: string, query: CheckoutSessionListQuery) => listCheckoutSessions(ctx, merchantId, query),
    /** The merchant API's reads of settlement: balances, and the payouts to the merchant's wallets (docs/settlement.md). */
    merchantBalances: (merchantId: string) => merchantBalances(ctx, merchantId),
    merchantTopUpAddresses: (merchantId: string) => merchantTopUpAddresses(ctx, merchantId),
    listSettlements: (merchantId: string, query: { cursor?: string | undefined; limit?: number | undefined }) =>
      listSettlements(ctx, merchantId, query),
    findSettlement: (merchantId: string, id: string) => findSettlement(ctx, merchantId, id),
    openDirectDeposit: (id: string) => openDirectDeposit(ctx, id),
    openPaymentLink: (merchant: PayingMerchant, request: PaymentLinkRequest) => openPaymentLink(ctx, merchant, request),
    findLink: (id: string) => findLink(ctx, id),
    linkStatus: (link: PaymentLinkRow) => linkStatus(link, ctx.now()),
    payLink: (link: PaymentLinkRow, countryCode: string, visitor: LinkVisitor) => payLink(ctx, link, countryCode, visitor),
    openSimpleOrder: (body: SimpleCheckoutBody) => openSimpleOrder(ctx, body),
    loadSimpleOrder: (code: string) => loadSimpleOrder(ctx, code),
    chooseRail: (order: SimpleOrderRow, slug: string) => chooseRail(ctx, order, slug),
    payoutFees: () => payoutFees(ctx),
    paymentOptions: (...args: Parameters<typeof paymentOptions> extends [unknown, ...infer Rest] ? Rest : never) =>
      paymentOptions(ctx.providers, ...args),
    ingestProviderEvent: (provider: string, rawBody: string, headers: Record<string, string | string[] | undefined>) =>
      ingestProviderEvent(ctx, provider, rawBody, headers),
    sweepOrphanedDeliveries: (olderThanSeconds?: number) => sweepOrphanedDeliveries(ctx, olderThanSeconds),
    resendDelivery: (deliveryId: string, merchantId?: string) => resendDelivery(ctx, deliveryId, merchantId),
    sendTestEvent: (merchantId: string, endpointId: string) => sendTestEvent(ctx, merchantId, endpointId),
    listExceptions: (status: ExceptionStatus | undefined, limit: number) => listExceptions(ctx, status, limit),
    acceptException: (id: string) => acceptException(ctx, id),
    refundException: (id: string, address?: string) => refundException(ctx, id, address),
    /** A completed payment refunded, wholly or partly, from the treasury (operators; the dashboard's goes through paymentDetail). */
    refundPayment: (input: { paymentId: string; amount: string; address?: string; requestedBy: string; requestKey?: string }) =>
      refundPayment(ctx, input),
    paymentProof: (id: string) => paymentProof(ctx, id),
    listPayouts: (status: PayoutRow['status'] | undefined, limit: number) => listPayouts(ctx, status, limit),
    retryPayout: (id: string) => retryPayout(ctx, id),
    lookups: paymentLookups(ctx),
    killSwitch: killSwitch(ctx.db),
    admin: adminLookups(ctx),
    pages: hostedPageReads(ctx),
    merchants: adminMerchants(ctx),
    reconcile: () => reconcile(ctx.db, ctx.config.chains, ctx.treasuryAddress ?? null),
    /** An operator's funding of a treasury from outside, recorded from its transaction (docs/settlement.md). */
    recordTreasuryFunding: (input: { network: string; transactionHash: string }) => recordTreasuryFunding(ctx, input),
    deliveries: deliveryReads(ctx),
    /** A merchant's own payments: the dashboard's list and its CSV. */
    merchantPayments: merchantPayments(ctx),
    /** One payment of a merchant: its page (timeline, proof) and the refund of its exceptions. */
    paymentDetail: merchantPaymentDetail(ctx),
    /** A merchant's payment links in the dashboard. */
    merchantLinks: merchantLinks(ctx),
    events: merchantEvents(ctx),
    findOwnSite: (origin: string, merchantId: string) => findOwnSite(ctx, origin, merchantId),
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
