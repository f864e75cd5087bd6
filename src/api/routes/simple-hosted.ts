import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { SimpleOrderRow } from '../../payments/rows';
import type { Asset, Network } from '../../domain/assets';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError, notFound } from '../../domain/errors';
import { negotiateLocale } from '../../domain/locales';
import { formatCrypto, formatFiatText } from '../../domain/money';
import { DEFAULT_FIAT_RAIL, findRail } from '../../domain/rails';
import { transferUri } from '../../domain/payment-uri';
import type { PaymentContext } from '../../payments';
import { orderPageStatuses } from '../../payments/customer-status';
import { verifierFor } from '../../payments/deposits';
import type { StatusStreams } from '../live-status';
import { renderMessagePage } from '../hosted/checkout-page';
import { pageText, type PageText } from '../hosted/i18n';
import { originOf } from '../hosted/origin';
import { renderSimplePage, type SimplePageModel } from '../hosted/simple-page';
import { navigates, redirectToPage, takeNotice } from '../hosted/after-post';

// Only UUIDs reach these routes: find-my-way tries the regex parameter before hosted-checkout.ts's
// plain /pay/:id, so canonical SV_ ids keep going there.
const CODE = ':code([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})';

/** The simple API's hosted page and its Pay action (also what the sandbox's test helper presses). */
const simpleHostedRoutes: FastifyPluginAsync<PaymentContext & { providerOrigins: string[]; streams: StatusStreams }> = async (
  app,
  { config, db, providerOrigins, streams },
) => {
  const payments = app.payments;
  // The page's live status: the order's status, and whether its payout has left.
  const live = streams.topic((codes) => orderPageStatuses({ db }, codes));
  const load = (code: string) => payments.pages.simpleOrder(code);
  // The customer's browser decides the language: a simple order carries no locale of its own.
  const textFor = (request: FastifyRequest): PageText => pageText(negotiateLocale(request.headers['accept-language']));
  const notFoundPage = (request: FastifyRequest, reply: FastifyReply) => {
    const { t, locale } = textFor(request);
    return reply
      .header('vary', 'accept-language')
      .page(404, renderMessagePage(t('common.notFoundTitle'), t('simple.notFoundBody'), undefined, locale));
  };

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    order: SimpleOrderRow,
    status = 200,
    extra: Partial<SimplePageModel> = {},
  ) {
    const paymentsEnabled = await payments.pages.paymentsEnabled();
    const options =
      order.status === 'pending' && isFiatCurrency(order.fiatCurrency)
        ? await payments.paymentOptions(
            { minor: order.fiatAmountMinor, currency: order.fiatCurrency, usdMicro: order.amountUsdMicro },
            { asset: order.walletCurrency as Asset, network: order.walletNetwork as Network },
            (err) => reply.log.warn({ err }, 'provider quote failed'),
          )
        : [];
    // What a redirected form post could not do, said once on the page it landed on.
    const text = textFor(request);
    const flashed = takeNotice(request, reply, `/pay/${order.transactionCode}`).map((k) => text.t(k));
    const model: SimplePageModel = {
      ...(flashed.length > 0 ? { notice: flashed.join(' ') } : {}),
      order,
      fiatAmount: formatFiatText(order.fiatAmountMinor, order.fiatCurrency),
      usdAmount: formatCrypto(order.amountUsdMicro),
      options,
      paymentsEnabled,
      text,
      ...extra,
    };
    return reply
      .header('vary', 'accept-language')
      .page(status, renderSimplePage(model), { formTargets: [...providerOrigins, originOf(order.cancelUrl)] });
  }

  /**
   * What went wrong, in the customer's words, on the page as the order now stands. A form post from a
   * browser goes back to the page's GET URL with it (post/redirect/get); a GET says it in place.
   */
  async function failed(request: FastifyRequest, reply: FastifyReply, order: SimpleOrderRow, err: unknown) {
    if (!(err instanceof AppError)) throw err;
    const fresh = (await load(order.transactionCode)) ?? order;
    // Payments paused: the page's own state says it, once.
    const keys = err.code === 'PaymentsDisabled' ? [] : [fresh.status === 'pending' ? 'simple.couldNotStart' : 'simple.cannotPay'];
    if (err.code === 'Unavailable') keys.push('common.tryAgainSoon');
    if (request.method === 'POST' && navigates(request))
      return redirectToPage(reply, `/pay/${fresh.transactionCode}`, `/pay/${fresh.transactionCode}`, keys);
    const { t } = textFor(request);
    return render(request, reply, fresh, err.status, keys.length > 0 ? { notice: keys.map((k) => t(k)).join(' ') } : {});
  }

  app.get<{ Params: { code: string }; Querystring: { method?: string } }>(
    `/pay/${CODE}`,
    { schema: { hide: true } },
    async (request, reply) => {
      const order = await load(request.params.code);
      if (!order) return notFoundPage(request, reply);
      const rail = typeof request.query.method === 'string' ? findRail(request.query.method) : undefined;
      if (!rail || rail.type !== 'crypto' || order.status !== 'pending') return render(request, reply, order);
      try {
        const instructions = await payments.chooseRail(order, rail.slug);
        if (instructions.type !== 'crypto') return render(request, reply, order);
        // The wallet URI (token, amount, recipient) when the token is known here; the bare address otherwise.
        const chain = verifierFor(config, instructions.network.toLowerCase(), instructions.asset);
        const uri = transferUri({
          ...instructions,
          evm: chain ? { token: chain.tokens[instructions.asset as 'USDC' | 'USDT']!, chainId: chain.chainId } : undefined,
        });
        const qrSvg = await QRCode.toString(uri ?? instructions.address, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
        return render(request, reply, (await load(order.transactionCode)) ?? order, 200, { crypto: { instructions, qrSvg, uri } });
      } catch (err) {
        return failed(request, reply, order, err);
      }
    },
  );

  // The page's live status as server-sent events (api/live-status.ts), like a session's.
  app.get<{ Params: { code: string } }>(`/pay/${CODE}/events`, { schema: { hide: true } }, async (request, reply) => {
    const code = request.params.code.toLowerCase();
    const first = await live.read(code);
    if (!first) throw notFound('Transaction');
    live.serve(request, reply, code, first);
  });

  // The form's URL as a restored tab or an old history entry may GET it: the order's page.
  app.get<{ Params: { code: string } }>(`/pay/${CODE}/start`, { schema: { hide: true } }, async (request, reply) =>
    reply.redirect(`/pay/${request.params.code.toLowerCase()}`, 303),
  );

  app.post<{ Params: { code: string }; Body: { payment_method?: string } | undefined }>(
    `/pay/${CODE}/start`,
    { schema: { hide: true } },
    async (request, reply) => {
      const order = await load(request.params.code);
      if (!order) return notFoundPage(request, reply);
      const rail = findRail(request.body?.payment_method ?? DEFAULT_FIAT_RAIL);
      if (!rail && navigates(request))
        return redirectToPage(reply, `/pay/${order.transactionCode}`, `/pay/${order.transactionCode}`, ['simple.unknownMethod']);
      if (!rail) return render(request, reply, order, 422, { notice: textFor(request).t('simple.unknownMethod') });
      if (rail.type === 'crypto') return reply.redirect(`/pay/${order.transactionCode}?method=${rail.slug}`, 303);
      try {
        const instructions = await payments.chooseRail(order, rail.slug);
        if (instructions.type !== 'fiat')
          return navigates(request) ? reply.redirect(`/pay/${order.transactionCode}`, 303) : render(request, reply, order, 409);
        return reply.redirect(instructions.redirectUrl, 303);
      } catch (err) {
        return failed(request, reply, order, err);
      }
    },
  );
};

export default simpleHostedRoutes;
