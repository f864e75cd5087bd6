import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findVisibleSimpleOrder } from '../../db/queries/simple-orders';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import { DEFAULT_ASSET, DEFAULT_NETWORK, type Asset, type Network } from '../../domain/assets';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError, notFound } from '../../domain/errors';
import { formatCrypto } from '../../domain/money';
import { choosePayment, isTransactionCode, openSimpleOrder, parseFiat, type SimpleDeps } from '../simple/open-order';
import { findRail, paymentOptions } from '../simple/rails';
import { simpleErrorHandler } from '../plugins/errors';
import { transactionView } from '../simple/views';

// The simple API (spec 4.9), under /api: no API key, no rate limit, the { status } envelope of
// decisions §3 (its own error handler, set on this plugin: every route here answers in that envelope).

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }).max(2048);

const checkoutBody = z.strictObject({
  fiat_amount: z.number().positive(),
  fiat_currency: z.string().min(3).max(3),
  external_reference: z.string().min(1).max(200).optional(),
  webhook_url: httpUrl.optional(),
  success_url: httpUrl.optional(),
  cancel_url: httpUrl.optional(),
  customer: z.strictObject({
    wallet_address: z.string().min(1).max(128),
    crypto_currency: z.string().min(1).max(10),
    crypto_currency_network: z.string().min(1).max(20),
  }),
});

const optionsQuery = z.object({
  fiat_amount: z.string().regex(/^\d{1,15}(\.\d+)?$/, 'must be a decimal number'),
  fiat_currency: z.string().min(3).max(3),
});
const codeQuery = z.object({ transaction_code: z.string().min(1).max(100) });
const linkQuery = codeQuery.extend({ payment_method: z.string().min(1).max(50) });

const ok = <T>(data: T) => ({ status: 'success' as const, data });

const simpleApiRoutes: FastifyPluginAsync<SimpleDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.setErrorHandler(simpleErrorHandler);
  const { db, temporal, providers, config } = deps;

  async function loadOrder(code: string) {
    if (!isTransactionCode(code)) throw new AppError('InvalidId', 'transaction_code must be a UUID.');
    const order = await findVisibleSimpleOrder(db, code.toLowerCase());
    if (!order) throw notFound('Transaction');
    return order;
  }

  const quoteError = (err: unknown) => app.log.warn({ err }, 'provider quote failed; fiat rails left out');

  app.get('/payment_options', { schema: { tags: ['simple'], querystring: optionsQuery } }, async (request) => {
    const details: { path: string; message: string }[] = [];
    const fiat = parseFiat(config, request.query.fiat_amount, request.query.fiat_currency, details);
    if (!fiat) throw new AppError('ValidationError', details[0] ? `${details[0].path}: ${details[0].message}` : 'Invalid amount.', { details });
    const options = await paymentOptions(providers, fiat.minor, fiat.currency, DEFAULT_ASSET, DEFAULT_NETWORK, quoteError);
    return ok({ fiat_amount: request.query.fiat_amount, fiat_currency: fiat.currency, payment_options: options });
  });

  app.post('/checkout', { schema: { tags: ['simple'], body: checkoutBody } }, async (request, reply) => {
    const order = await openSimpleOrder(deps, request.body);
    const currency = order.fiatCurrency;
    const options = isFiatCurrency(currency)
      ? await paymentOptions(providers, order.fiatAmountMinor, currency, order.walletCurrency as Asset, order.walletNetwork as Network, quoteError)
      : [];
    return reply.status(201).send(
      ok({
        transaction_code: order.transactionCode,
        amount_in_usd: Number(formatCrypto(order.amountUsdMicro)),
        checkout_url: `${config.http.publicBaseUrl}/pay/${order.transactionCode}`,
        payment_options: options,
      }),
    );
  });

  app.get('/payment_link', { schema: { tags: ['simple'], querystring: linkQuery } }, async (request) => {
    const order = await loadOrder(request.query.transaction_code);
    const rail = findRail(request.query.payment_method);
    if (!rail) {
      throw new AppError('ValidationError', `payment_method: unknown rail ${request.query.payment_method}.`, {
        details: [{ path: 'payment_method', message: 'Unknown payment method.' }],
      });
    }
    if (order.status !== 'pending') throw new AppError('Conflict', `The order is ${order.status} and can no longer be paid.`);
    if (!(await getPaymentsSetting(db)).enabled) throw new AppError('PaymentsDisabled', 'New payments are disabled on this platform for now.');
    const instructions = await choosePayment(temporal, order.transactionCode, rail.slug);
    if (instructions.type === 'fiat') return ok({ payment_method: rail.slug, type: 'fiat', redirect_url: instructions.redirectUrl });
    return ok({
      payment_method: rail.slug,
      type: 'crypto',
      address: instructions.address,
      amount: instructions.amount,
      asset: instructions.asset,
      network: instructions.network,
      expires_at: instructions.expiresAt,
    });
  });

  app.get('/transaction', { schema: { tags: ['simple'], querystring: codeQuery } }, async (request) => {
    return ok(transactionView(await loadOrder(request.query.transaction_code)));
  });
};

export default simpleApiRoutes;
