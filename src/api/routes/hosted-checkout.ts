import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { CheckoutSessionRow } from '../../payments/rows';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError } from '../../domain/errors';
import { negotiateLocale } from '../../domain/locales';
import { formatCrypto, formatFiat, parseCrypto } from '../../domain/money';
import { eip681TransferUri } from '../../domain/payment-uri';
import { customerStatus } from '../../payments/customer-status';
import { verifierFor } from '../../payments/deposits';
import { LinkAlreadyPaid, LinkPaymentInProgress, MerchantNotAccepting, type DirectDeposit, type PaymentContext } from '../../payments';
import { moneySent, renderCancelConfirmation } from '../hosted/cancel-page';
import { renderCheckoutPage, renderMessagePage, withSessionId } from '../hosted/checkout-page';
import { pageText, type PageText } from '../hosted/i18n';
import { originOf } from '../hosted/origin';
import { navigates, redirectToPage, takeNotice } from '../hosted/after-post';

/** Provider failure reasons that are a decision about this attempt, not about the customer or the money. */
const RETRYABLE_FAILURES = new Set(['card_declined', 'declined']);

/** The hosted checkout page and the two actions a customer takes on it: pay and cancel. */
const hostedCheckoutRoutes: FastifyPluginAsync<PaymentContext & { providerOrigins: string[] }> = async (
  app,
  { config, db, providerOrigins, now },
) => {
  const payments = app.payments;

  /** The merchant's choice for the session, else the customer's browser. */
  const textFor = (request: FastifyRequest, session?: CheckoutSessionRow): PageText =>
    pageText(session?.locale ?? negotiateLocale(request.headers['accept-language']));

  /**
   * A decline leaves the session open for another attempt on this page. Once a declined
   * session of a payment link has ended failed (its expiry came first), the still-open link makes a
   * new one, with the country chosen before. A failed delivery or a session made by the merchant's
   * API is final here.
   */
  async function retryUrlFor(session: CheckoutSessionRow): Promise<string | null> {
    if (session.status !== 'failed' || !session.paymentLinkId) return null;
    const failure = await payments.pages.failureReason(session.id);
    if (!failure || !RETRYABLE_FAILURES.has(failure)) return null;
    const link = await payments.findLink(session.paymentLinkId);
    return link && payments.linkStatus(link) === 'active' ? `/link/${link.id}?country=${encodeURIComponent(session.countryCode)}` : null;
  }

  async function renderFor(
    request: FastifyRequest,
    reply: FastifyReply,
    session: CheckoutSessionRow,
    status = 200,
    notice?: string,
    deposit?: DirectDeposit,
  ) {
    const [merchantName, paymentsEnabled, exceptions, standing, live, refund, receipt] = await Promise.all([
      payments.pages.merchantName(session.merchantId),
      payments.pages.paymentsEnabled(),
      payments.pages.paymentExceptions(session.id),
      payments.sessionStanding(session),
      customerStatus({ db, config }, session.id),
      payments.refundAddressAsk(session),
      payments.receiptEmailAsk(session),
    ]);
    const amount = isFiatCurrency(session.currency) ? formatFiat(session.amountMinor, session.currency) : String(session.amountMinor);
    let wallet: { deposit: DirectDeposit; qrSvg: string; uri: string; token?: string } | undefined;
    if (deposit) {
      // Partly paid: the QR carries what remains, to the same address.
      const token = verifierFor(config, deposit.network, deposit.asset)?.tokens[deposit.asset as 'USDC' | 'USDT'];
      const uri =
        live?.remaining && token ? eip681TransferUri(token, deposit.chainId, deposit.address, parseCrypto(live.remaining)) : deposit.uri;
      wallet = {
        deposit,
        uri,
        qrSvg: await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }),
        ...(token ? { token } : {}),
      };
    }
    const text = textFor(request, session);
    const retryUrl = await retryUrlFor(session);
    // What a redirected form post could not do, said once on the page it landed on.
    const flashed = takeNotice(request, reply, `/pay/${session.id}`).map((k) => text.t(k));
    const page = renderCheckoutPage({
      session,
      amount,
      merchantName: merchantName ?? null,
      paymentsEnabled,
      standing,
      notice: notice ?? (flashed.length > 0 ? flashed.join(' ') : undefined),
      wallet,
      live,
      text,
      now: now(),
      retryUrl,
      declined: live?.declined === true,
      refund,
      receipt,
      // Resolved ones are told by the status itself (an accepted payment is completed).
      // Accepted money is the payment (the status says so); open and refunded money is told as such.
      exceptions: exceptions
        .filter((e) => e.status !== 'accepted')
        .map((e) => ({ kind: e.kind, amount: formatCrypto(e.amountMicro), status: e.status })),
    });
    return reply.header('vary', 'accept-language').page(status, page, { formTargets: [...providerOrigins, originOf(session.cancelUrl)] });
  }

  const notFoundPage = (request: FastifyRequest, reply: FastifyReply) => {
    const { t, locale } = textFor(request);
    return reply.page(404, renderMessagePage(t('common.notFoundTitle'), t('common.notFoundBody'), undefined, locale));
  };

  /**
   * An action that could not be done. A browser goes back to the page's GET URL (post/redirect/get),
   * told what happened there; another client gets the page as it now stands with the refusal's status.
   */
  async function actionFailed(request: FastifyRequest, reply: FastifyReply, id: string, err: unknown, messageKey: string) {
    if (!(err instanceof AppError)) throw err;
    const fresh = await payments.findCheckoutSession(id);
    if (!fresh) return notFoundPage(request, reply);
    // The page itself says it: the link was paid (the paid page), the merchant takes no payments now,
    // or payments are paused (the kill switch's page).
    const saidByPage = err instanceof LinkAlreadyPaid || err instanceof MerchantNotAccepting || err.code === 'PaymentsDisabled';
    const advice = err.code === 'Unavailable' ? ['common.tryAgainSoon'] : [];
    const keys = saidByPage ? [] : [messageKey, ...advice];
    if (navigates(request)) return redirectToPage(reply, `/pay/${fresh.id}`, `/pay/${fresh.id}`, keys);
    const { t } = textFor(request, fresh);
    return renderFor(request, reply, fresh, err.status, saidByPage ? undefined : keys.map((k) => t(k)).join(' '));
  }

  app.get<{ Params: { id: string } }>('/pay/:id', { schema: { hide: true } }, async (request, reply) => {
    const session = await payments.findCheckoutSession(request.params.id);
    if (!session) return notFoundPage(request, reply);
    return renderFor(request, reply, session);
  });

  // "Pay from your wallet" as a page of its own: the deposit address, the exact amount and its QR code,
  // read again on every load. Before the customer asked for it (the amount is not fixed yet), or once
  // the session can no longer take money, it is the checkout page as it stands.
  app.get<{ Params: { id: string } }>('/pay/:id/wallet', { schema: { hide: true } }, async (request, reply) => {
    const session = await payments.findCheckoutSession(request.params.id);
    if (!session) return notFoundPage(request, reply);
    const open = session.status === 'pending' || session.status === 'processing';
    if (!open || session.expectedGrossMicro === null || session.verification !== 'chain') return renderFor(request, reply, session);
    let deposit: DirectDeposit | undefined;
    let notice: string | undefined;
    try {
      deposit = await payments.openDirectDeposit(session.id);
    } catch (err) {
      // Refused for a reason the page states (link paid, merchant paused, payments off, ended meanwhile),
      // or that only this refusal can: another tab of the link is paying it.
      if (!(err instanceof AppError)) throw err;
      if (err instanceof LinkPaymentInProgress) notice = textFor(request, session).t('common.linkInProgress');
    }
    return renderFor(request, reply, (await payments.findCheckoutSession(session.id)) ?? session, 200, notice, deposit);
  });

  // Cancel once money was sent: what happens to it, and the question (the cancel form leads here).
  // Otherwise, as the other actions' URLs, the page it belongs to.
  app.get<{ Params: { id: string } }>('/pay/:id/cancel', { schema: { hide: true } }, async (request, reply) => {
    const session = await payments.findCheckoutSession(request.params.id);
    if (!session) return notFoundPage(request, reply);
    const live = session.mode === 'test' ? undefined : await customerStatus({ db, config }, session.id);
    const sent = moneySent(live);
    if (!live || sent === null) return reply.redirect(`/pay/${encodeURIComponent(session.id)}`, 303);
    const merchantName = await payments.pages.merchantName(session.merchantId);
    const page = renderCancelConfirmation({
      session,
      amount: isFiatCurrency(session.currency) ? formatFiat(session.amountMinor, session.currency) : String(session.amountMinor),
      merchantName: merchantName ?? null,
      live,
      sent,
      text: textFor(request, session),
    });
    return reply.header('vary', 'accept-language').page(200, page, { formTargets: [originOf(session.cancelUrl)] });
  });

  // The actions' URLs as a restored tab or an old history entry may GET them: the page they belong to.
  for (const action of ['start', 'refund-address', 'email'] as const) {
    app.get<{ Params: { id: string } }>(`/pay/:id/${action}`, { schema: { hide: true } }, async (request, reply) =>
      reply.redirect(`/pay/${encodeURIComponent(request.params.id)}`, 303),
    );
  }

  app.post<{ Params: { id: string } }>('/pay/:id/start', { schema: { hide: true } }, async (request, reply) => {
    try {
      const started = await payments.startCheckoutPayment(request.params.id);
      return reply.redirect(started.redirectUrl, 303);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NotFound') return notFoundPage(request, reply);
      const key =
        err instanceof LinkPaymentInProgress
          ? 'common.linkInProgress'
          : err instanceof AppError && err.code === 'Conflict'
            ? 'checkout.cannotPay'
            : 'checkout.couldNotStart';
      return actionFailed(request, reply, request.params.id, err, key);
    }
  });

  // Fixes the amount and opens the deposit; a browser then reads it at its own GET URL.
  app.post<{ Params: { id: string } }>('/pay/:id/wallet', { schema: { hide: true } }, async (request, reply) => {
    try {
      const deposit = await payments.openDirectDeposit(request.params.id);
      if (navigates(request)) return reply.redirect(`/pay/${encodeURIComponent(request.params.id)}/wallet`, 303);
      const session = await payments.findCheckoutSession(request.params.id);
      if (!session) return notFoundPage(request, reply);
      return renderFor(request, reply, session, 200, undefined, deposit);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NotFound') return notFoundPage(request, reply);
      return actionFailed(
        request,
        reply,
        request.params.id,
        err,
        err instanceof LinkPaymentInProgress
          ? 'common.linkInProgress'
          : err instanceof AppError && err.code === 'Conflict'
            ? 'checkout.cannotPay'
            : 'checkout.couldNotPrepareWallet',
      );
    }
  });

  // The customer's refund address for money owed back; a browser comes back to the page.
  app.post<{ Params: { id: string }; Body: { address?: unknown } | undefined }>(
    '/pay/:id/refund-address',
    { schema: { hide: true } },
    async (request, reply) => {
      const address = typeof request.body?.address === 'string' ? request.body.address : '';
      try {
        await payments.saveRefundAddress(request.params.id, address);
        if (navigates(request)) return reply.redirect(`/pay/${encodeURIComponent(request.params.id)}`, 303);
        const session = await payments.findCheckoutSession(request.params.id);
        if (!session) return notFoundPage(request, reply);
        return renderFor(request, reply, session);
      } catch (err) {
        if (err instanceof AppError && err.code === 'NotFound') return notFoundPage(request, reply);
        return actionFailed(
          request,
          reply,
          request.params.id,
          err,
          err instanceof AppError && err.code === 'ValidationError' ? 'checkout.refund.invalid' : 'checkout.cannotPay',
        );
      }
    },
  );

  // An email address for the receipt and refund notices; a browser comes back to the view it was on.
  app.post<{ Params: { id: string }; Body: { email?: unknown; view?: unknown } | undefined }>(
    '/pay/:id/email',
    { schema: { hide: true } },
    async (request, reply) => {
      const email = typeof request.body?.email === 'string' ? request.body.email : '';
      const view = request.body?.view === 'wallet' ? '/wallet' : '';
      try {
        const session = await payments.findCheckoutSession(request.params.id);
        if (!session) return notFoundPage(request, reply);
        await payments.saveReceiptEmail(session.id, email, textFor(request, session).locale);
        if (navigates(request)) return reply.redirect(`/pay/${encodeURIComponent(session.id)}${view}`, 303);
        return renderFor(request, reply, (await payments.findCheckoutSession(session.id)) ?? session);
      } catch (err) {
        return actionFailed(
          request,
          reply,
          request.params.id,
          err,
          err instanceof AppError && err.code === 'ValidationError' ? 'checkout.email.invalid' : 'checkout.cannotPay',
        );
      }
    },
  );

  app.post<{ Params: { id: string }; Body: { confirm?: unknown } | undefined }>(
    '/pay/:id/cancel',
    { schema: { hide: true } },
    async (request, reply) => {
      try {
        // Money sent is not given back by the cancel: the customer is told what happens to it and asked,
        // and asked again when more arrived than they were told of (a page drawn before it came).
        const found = await payments.findCheckoutSession(request.params.id);
        const sent = found && found.mode !== 'test' ? moneySent(await customerStatus({ db, config }, found.id)) : null;
        if (found && sent !== null && request.body?.confirm !== sent)
          return reply.redirect(`/pay/${encodeURIComponent(found.id)}/cancel`, 303);
        const { status, session } = await payments.cancelCheckoutSession(request.params.id);
        // Having sent money, the customer stays: the page says where it went and asks where it goes back.
        if (status === 'canceled' && session.cancelUrl && sent === null)
          return reply.redirect(withSessionId(session.cancelUrl, session.id), 303);
        return reply.redirect(`/pay/${session.id}`, 303);
      } catch (err) {
        if (err instanceof AppError && err.code === 'NotFound') return notFoundPage(request, reply);
        return actionFailed(
          request,
          reply,
          request.params.id,
          err,
          err instanceof AppError && err.code === 'Conflict' ? 'checkout.cannotCancel' : 'checkout.couldNotCancel',
        );
      }
    },
  );
};

export default hostedCheckoutRoutes;
