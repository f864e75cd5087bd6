import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEFAULT_ASSET, DEFAULT_NETWORK, type Asset, type Network } from '../../domain/assets';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError } from '../../domain/errors';
import { formatCrypto } from '../../domain/money';
import type { PaymentContext } from '../../payments';
import { parseFiat } from '../../payments/amounts';
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

// Spec 2.9: what POST /checkout answers (201). Loose objects: documented fields, nothing stripped.
const checkoutAnswer = z.looseObject({
  status: z.literal('success'),
  data: z.looseObject({
    transaction_code: z.string(),
    amount_in_usd: z.number(),
    checkout_url: z.string(),
    payment_options: z.array(z.object({ slug: z.string(), type: z.enum(['fiat', 'crypto']), name: z.string(), amount: z.string(), currency: z.string(), network: z.string().optional(), receive_amount: z.string().optional(), receive_currency: z.string().optional() })),
  }),
});

const simpleApiRoutes: FastifyPluginAsync<PaymentContext> = async (plain, { config }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.setErrorHandler(simpleErrorHandler);
  const payments = app.payments;
  const quoteError = (err: unknown) => app.log.warn({ err }, 'provider quote failed; the rails that need it are left out');

  app.get('/payment_options', { schema: { tags: ['simple'], querystring: optionsQuery } }, async (request) => {
    const details: { path: string; message: string }[] = [];
    const fiat = parseFiat(config.checkout, request.query.fiat_amount, request.query.fiat_currency, details, { amount: 'fiat_amount', currency: 'fiat_currency' });
    if (!fiat) throw new AppError('ValidationError', details[0] ? `${details[0].path}: ${details[0].message}` : 'Invalid amount.', { details });
    const options = await payments.paymentOptions(fiat, { asset: DEFAULT_ASSET, network: DEFAULT_NETWORK }, quoteError);
    // Issue 26 item 12: what the payout to the customer's wallet costs, and the smallest order taken.
    return ok({ fiat_amount: request.query.fiat_amount, fiat_currency: fiat.currency, payment_options: options, payout_fees: payments.payoutFees() });
  });

  app.post('/checkout', { schema: { tags: ['simple'], summary: 'Create a pending order', body: checkoutBody, response: { 201: checkoutAnswer } } }, async (request, reply) => {
    const order = await payments.openSimpleOrder(request.body);
    const currency = order.fiatCurrency;
    const options = isFiatCurrency(currency)
      ? await payments.paymentOptions(
          { minor: order.fiatAmountMinor, currency, usdMicro: order.amountUsdMicro },
          { asset: order.walletCurrency as Asset, network: order.walletNetwork as Network },
          quoteError,
        )
      : [];
    return reply.status(201).send(
      ok({
        transaction_code: order.transactionCode,
        amount_in_usd: Number(formatCrypto(order.amountUsdMicro)),
        checkout_url: `${config.http.publicBaseUrl}/pay/${order.transactionCode}`,
        payment_options: options,
        // Deducted from the payout to the customer's wallet (issue 26 item 12).
        network_fee: formatCrypto(order.networkFeeMicro),
      }),
    );
  });

  app.get('/payment_link', { schema: { tags: ['simple'], querystring: linkQuery } }, async (request) => {
    const order = await payments.loadSimpleOrder(request.query.transaction_code);
    const instructions = await payments.chooseRail(order, request.query.payment_method);
    if (instructions.type === 'fiat') return ok({ payment_method: instructions.slug, type: 'fiat', redirect_url: instructions.redirectUrl });
    return ok({
      payment_method: instructions.slug,
      type: 'crypto',
      address: instructions.address,
      amount: instructions.amount,
      asset: instructions.asset,
      network: instructions.network,
      expires_at: instructions.expiresAt,
    });
  });

  app.get('/transaction', { schema: { tags: ['simple'], querystring: codeQuery } }, async (request) => {
    return ok(transactionView(await payments.loadSimpleOrder(request.query.transaction_code)));
  });
};

export default simpleApiRoutes;
