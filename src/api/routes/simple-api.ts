import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ASSETS, DEFAULT_ASSET, DEFAULT_NETWORK, NETWORKS, type Asset, type Network } from '../../domain/assets';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError } from '../../domain/errors';
import { formatCrypto } from '../../domain/money';
import type { PaymentContext } from '../../payments';
import { parseFiat } from '../../payments/amounts';
import { simpleErrorHandler } from '../plugins/errors';
import { countSimpleOrder } from '../plugins/rate-limit';
import { transactionView } from '../simple/views';
import { assetName, networkName, simpleOrderStatus } from '../closed-values';

// The simple API (docs/api.md), under /api: no API key, orders limited per client address, the
// { status } envelope (its own error handler, set on this plugin: every route here answers in that
// envelope, transport errors included).

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }).max(2048);

const checkoutBody = z
  .strictObject({
    fiat_amount: z.number().positive(),
    fiat_currency: z.string().min(3).max(3),
    external_reference: z.string().min(1).max(200).optional(),
    webhook_url: httpUrl.optional(),
    success_url: httpUrl.optional(),
    cancel_url: httpUrl.optional(),
    customer: z.strictObject({
      wallet_address: z.string().min(1).max(128),
      crypto_currency: z
        .string()
        .min(1)
        .max(10)
        .meta({ enum: [...ASSETS], description: 'The stablecoin the customer receives (any case).' }),
      crypto_currency_network: z
        .string()
        .min(1)
        .max(20)
        .meta({ enum: NETWORKS.map((n) => n.toUpperCase()), description: 'Its network (any case; uppercase in answers).' }),
    }),
  })
  .meta({
    examples: [
      {
        fiat_amount: 25,
        fiat_currency: 'EUR',
        external_reference: 'order-1042',
        webhook_url: 'https://shop.example/webhooks/orders',
        success_url: 'https://shop.example/thanks',
        cancel_url: 'https://shop.example/cart',
        customer: {
          wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
          crypto_currency: 'USDC',
          crypto_currency_network: 'POLYGON',
        },
      },
    ],
  });

const optionsQuery = z.object({
  fiat_amount: z.string().regex(/^\d{1,15}(\.\d+)?$/, 'must be a decimal number'),
  fiat_currency: z.string().min(3).max(3),
});
const codeQuery = z.object({ transaction_code: z.string().min(1).max(100) });
const linkQuery = codeQuery.extend({ payment_method: z.string().min(1).max(50) });

const ok = <T>(data: T) => ({ status: 'success' as const, data });

const paymentOption = z.object({
  slug: z.string().meta({ examples: ['card'] }),
  type: z.enum(['fiat', 'crypto']),
  name: z.string().meta({ examples: ['Card'] }),
  amount: z.string().meta({ examples: ['25.00'] }),
  currency: z.string().meta({ examples: ['EUR'] }),
  network: z.string().optional(),
  receive_amount: z.string().optional(),
  receive_currency: z.string().optional(),
});

// What the GETs answer: loose objects (documented fields, nothing stripped), in the { status, data } envelope.
const optionsAnswer = z.looseObject({
  status: z.literal('success'),
  data: z.looseObject({
    fiat_amount: z.string().meta({ examples: ['25.00'] }),
    fiat_currency: z.string().meta({ examples: ['EUR'] }),
    payment_options: z.array(paymentOption),
    payout_fees: z.array(
      z.object({
        currency: assetName,
        network: z.string().meta({ enum: NETWORKS.map((n) => n.toUpperCase()), examples: ['POLYGON'] }),
        network_fee: z
          .string()
          .meta({ description: 'Deducted from the payout to the customer’s wallet, 6 decimals.', examples: ['0.050000'] }),
        minimum_amount_usd: z.string().meta({ examples: ['1.000000'] }),
      }),
    ),
  }),
});
const linkAnswer = z.looseObject({
  status: z.literal('success'),
  data: z
    .looseObject({
      payment_method: z.string().meta({ examples: ['usdc_polygon'] }),
      type: z.enum(['fiat', 'crypto']),
      redirect_url: z.string().optional().meta({ description: 'Fiat rails: send the customer to this page.' }),
      address: z.string().optional().meta({ description: 'Crypto rails: the deposit address.' }),
      amount: z.string().optional(),
      asset: assetName.optional(),
      network: networkName.optional(),
      expires_at: z.string().optional(),
    })
    .meta({
      examples: [
        {
          payment_method: 'usdc_polygon',
          type: 'crypto',
          address: '0x1aD91ee08f21bE3dE0BA2ba6918E714dA6B45836',
          amount: '27.050000',
          asset: 'USDC',
          network: 'polygon',
          expires_at: '2026-01-15T11:30:00.000Z',
        },
      ],
    }),
});
const transactionAnswer = z.looseObject({
  status: z.literal('success'),
  data: z.looseObject({
    transaction_code: z.string(),
    status: simpleOrderStatus,
    external_reference: z.string().nullable(),
    fiat_amount: z.number(),
    fiat_currency: z.string(),
    amount_in_usd: z.number(),
    received_usd: z
      .number()
      .nullable()
      .meta({ examples: [27] }),
    network_fee: z.number().meta({ examples: [0.05] }),
    wallet_address: z.string(),
    wallet_currency: assetName,
    wallet_network: z.string().meta({ enum: NETWORKS.map((n) => n.toUpperCase()), examples: ['POLYGON'] }),
    payment_method: z
      .string()
      .nullable()
      .meta({ examples: ['usdc_polygon'] }),
    payout_dispatched: z.boolean().meta({ examples: [true] }),
    verification: z.enum(['chain', 'provider']),
    transaction_hash: z
      .string()
      .nullable()
      .meta({ examples: ['0x9f3c2a8e4b1d7c6f5a4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a'] }),
    explorer_url: z
      .string()
      .nullable()
      .meta({ examples: ['https://polygonscan.com/tx/0x9f3c2a8e4b1d7c6f5a4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a'] }),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    created_at: z.string().meta({ examples: ['2026-01-15T10:30:00.000Z'] }),
    updated_at: z.string().meta({ examples: ['2026-01-15T10:36:40.000Z'] }),
    expires_at: z.string(),
    settled_at: z
      .string()
      .nullable()
      .meta({ examples: ['2026-01-15T10:36:40.000Z'] }),
  }),
});

// What POST /checkout answers (201), as its clients read it. Loose objects: documented fields, nothing stripped.
const checkoutAnswer = z.looseObject({
  status: z.literal('success'),
  data: z.looseObject({
    transaction_code: z.string(),
    amount_in_usd: z.number(),
    checkout_url: z.string(),
    payment_options: z.array(paymentOption),
  }),
});

const simpleApiRoutes: FastifyPluginAsync<PaymentContext> = async (plain, { config, db }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.setErrorHandler(simpleErrorHandler);
  const payments = app.payments;
  const quoteError = (err: unknown) => app.log.warn({ err }, 'provider quote failed; the rails that need it are left out');

  app.get(
    '/payment_options',
    {
      schema: {
        tags: ['simple'],
        summary: 'Payment rails for an amount',
        description:
          'The rails a customer can pay this amount with (fiat through the provider, crypto to a deposit address), and what the payout to the customer’s wallet costs per network.',
        querystring: optionsQuery,
        response: { 200: optionsAnswer },
      },
    },
    async (request) => {
      const details: { path: string; message: string }[] = [];
      const fiat = parseFiat(config.checkout, request.query.fiat_amount, request.query.fiat_currency, details, {
        amount: 'fiat_amount',
        currency: 'fiat_currency',
      });
      if (!fiat)
        throw new AppError('ValidationError', details[0] ? `${details[0].path}: ${details[0].message}` : 'Invalid amount.', { details });
      const options = await payments.paymentOptions(fiat, { asset: DEFAULT_ASSET, network: DEFAULT_NETWORK }, quoteError);
      // What the payout to the customer's wallet costs, and the smallest order taken.
      return ok({
        fiat_amount: request.query.fiat_amount,
        fiat_currency: fiat.currency,
        payment_options: options,
        payout_fees: payments.payoutFees(),
      });
    },
  );

  app.post(
    '/checkout',
    {
      schema: {
        tags: ['simple'],
        summary: 'Create a pending order',
        description:
          'Opens an order (a simpleOrder workflow) and answers its transaction_code, its hosted page and the rails it can be paid with. ' +
          'With webhook_url, transaction.settled is POSTed there once when the order settles (8 s, no retry). ' +
          'One client address opens at most SIMPLE_API_ORDERS_PER_MINUTE orders a minute (default 60; 429 with Retry-After beyond).',
        body: checkoutBody,
        response: { 201: checkoutAnswer },
      },
    },
    async (request, reply) => {
      await countSimpleOrder(db, request.ip, config.http.simpleOrdersPerMinute);
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
          // Deducted from the payout to the customer's wallet.
          network_fee: formatCrypto(order.networkFeeMicro),
        }),
      );
    },
  );

  app.get(
    '/payment_link',
    {
      schema: {
        tags: ['simple'],
        summary: 'Instructions to pay an order with a rail',
        description:
          'Chooses the rail (payment_method, a slug of GET /payment_options) for a pending order: fiat rails answer redirect_url, crypto rails an address and an amount.',
        querystring: linkQuery,
        response: { 200: linkAnswer },
      },
    },
    async (request) => {
      const order = await payments.loadSimpleOrder(request.query.transaction_code);
      const instructions = await payments.chooseRail(order, request.query.payment_method);
      if (instructions.type === 'fiat')
        return ok({ payment_method: instructions.slug, type: 'fiat', redirect_url: instructions.redirectUrl });
      return ok({
        payment_method: instructions.slug,
        type: 'crypto',
        address: instructions.address,
        amount: instructions.amount,
        asset: instructions.asset,
        network: instructions.network,
        expires_at: instructions.expiresAt,
      });
    },
  );

  app.get(
    '/transaction',
    {
      schema: {
        tags: ['simple'],
        summary: 'Live status of an order',
        description: 'For reconciliation from a thank-you page, or when a webhook did not arrive (they are not retried).',
        querystring: codeQuery,
        response: { 200: transactionAnswer },
      },
    },
    async (request) => ok(transactionView(await payments.loadSimpleOrder(request.query.transaction_code))),
  );
};

export default simpleApiRoutes;
