import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import QRCode from 'qrcode';
import type { CheckoutSessionRow } from '../../db/queries/checkout-sessions';
import { findMerchant } from '../../db/queries/merchants';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError } from '../../domain/errors';
import { formatCrypto, formatFiat } from '../../domain/money';
import { listPaymentExceptions } from '../../db/queries/payment-exceptions';
import type { DirectDeposit, PaymentContext } from '../../payments';
import { renderCheckoutPage, renderMessagePage } from '../hosted/checkout-page';
import { originOf } from '../hosted/plugin';

/** The hosted checkout page and the two actions a customer takes on it: pay and cancel. */
const hostedCheckoutRoutes: FastifyPluginAsync<PaymentContext & { providerOrigins: string[] }> = async (app, { db, providerOrigins }) => {
  const payments = app.payments;

  async function renderFor(reply: FastifyReply, session: CheckoutSessionRow, status = 200, notice?: string, deposit?: DirectDeposit) {
    const [merchant, setting, exceptions] = await Promise.all([findMerchant(db, session.merchantId), getPaymentsSetting(db), listPaymentExceptions(db, session.id)]);
    const amount = isFiatCurrency(session.currency) ? formatFiat(session.amountMinor, session.currency) : String(session.amountMinor);
    const wallet = deposit ? { deposit, qrSvg: await QRCode.toString(deposit.uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }) } : undefined;
    const page = renderCheckoutPage({
      session,
      amount,
      merchantName: merchant?.name ?? 'the merchant',
      paymentsEnabled: setting.enabled,
      notice,
      wallet,
      // Resolved ones are told by the status itself (an accepted payment is completed).
      exceptions: exceptions.filter((e) => e.status === 'open').map((e) => ({ kind: e.kind, amount: formatCrypto(e.amountMicro) })),
    });
    return reply.page(status, page, { formTargets: [...providerOrigins, originOf(session.cancelUrl)] });
  }

  const notFoundPage = (reply: FastifyReply) =>
    reply.page(404, renderMessagePage('Checkout not found', 'This checkout link is not valid. Please return to the merchant.'));

  /** An action that could not be done: the page as it now stands, with what happened in words. */
  async function actionFailed(reply: FastifyReply, id: string, err: unknown, message: string) {
    if (!(err instanceof AppError)) throw err;
    const fresh = await payments.findCheckoutSession(id);
    if (!fresh) return notFoundPage(reply);
    const advice = err.code === 'Unavailable' ? ' Please try again in a moment.' : err.code === 'PaymentsDisabled' ? ' Payments are temporarily unavailable.' : '';
    return renderFor(reply, fresh, err.status, `${message}${advice}`);
  }

  app.get<{ Params: { id: string } }>('/pay/:id', { schema: { hide: true } }, async (request, reply) => {
    const session = await payments.findCheckoutSession(request.params.id);
    if (!session) return notFoundPage(reply);
    return renderFor(reply, session);
  });

  app.post<{ Params: { id: string } }>('/pay/:id/start', { schema: { hide: true } }, async (request, reply) => {
    try {
      const started = await payments.startCheckoutPayment(request.params.id);
      return reply.redirect(started.redirectUrl, 303);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NotFound') return notFoundPage(reply);
      return actionFailed(reply, request.params.id, err, err instanceof AppError && err.code === 'Conflict' ? err.message : 'The payment could not be started.');
    }
  });

  // "Pay from your wallet": the same page with the deposit address, the exact amount and its QR code.
  app.post<{ Params: { id: string } }>('/pay/:id/wallet', { schema: { hide: true } }, async (request, reply) => {
    try {
      const deposit = await payments.openDirectDeposit(request.params.id);
      const session = await payments.findCheckoutSession(request.params.id);
      if (!session) return notFoundPage(reply);
      return renderFor(reply, session, 200, undefined, deposit);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NotFound') return notFoundPage(reply);
      return actionFailed(reply, request.params.id, err, err instanceof AppError && err.code === 'Conflict' ? err.message : 'The wallet payment could not be prepared.');
    }
  });

  app.post<{ Params: { id: string } }>('/pay/:id/cancel', { schema: { hide: true } }, async (request, reply) => {
    try {
      const { status, session } = await payments.cancelCheckoutSession(request.params.id);
      if (status === 'canceled' && session.cancelUrl) return reply.redirect(session.cancelUrl, 303);
      return reply.redirect(`/pay/${session.id}`, 303);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NotFound') return notFoundPage(reply);
      return actionFailed(reply, request.params.id, err, err instanceof AppError && err.code === 'Conflict' ? err.message : 'The checkout could not be canceled.');
    }
  });
};

export default hostedCheckoutRoutes;
