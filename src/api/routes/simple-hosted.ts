import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import QRCode from 'qrcode';
import { findVisibleSimpleOrder, type SimpleOrderRow } from '../../db/queries/simple-orders';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import type { Asset, Network } from '../../domain/assets';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError } from '../../domain/errors';
import { formatCrypto } from '../../domain/money';
import { renderMessagePage } from '../hosted/checkout-page';
import { isForeignFormPost } from '../hosted/same-origin';
import { renderSimplePage, SIMPLE_PAGE_CSS, SIMPLE_PAGE_JS, type SimplePageModel } from '../hosted/simple-page';
import { choosePayment, type SimpleDeps } from '../simple/open-order';
import { DEFAULT_FIAT_RAIL, findRail, paymentOptions } from '../simple/rails';
import { fiatText } from '../simple/views';

// Only UUIDs reach these routes: find-my-way tries the regex parameter before hosted-checkout.ts's
// plain /pay/:id, so canonical SV_ ids keep going there.
const CODE = ':code([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})';

const originOf = (url: string | null | undefined) => {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
};

type Deps = SimpleDeps & { providerOrigins: string[] };

/** The simple API's hosted page and its Pay action (also what the sandbox's test helper presses). */
const simpleHostedRoutes: FastifyPluginAsync<Deps> = async (app, deps) => {
  const { config, db, temporal, providers, providerOrigins } = deps;
  const ownOrigin = new URL(config.http.publicBaseUrl).origin;

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  function page(reply: FastifyReply, status: number, body: string, order?: SimpleOrderRow) {
    const formTargets = ["'self'", ...providerOrigins, originOf(order?.cancelUrl)].filter(Boolean).join(' ');
    return reply
      .status(status)
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
      )
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .send(body);
  }

  const notFoundPage = (reply: FastifyReply) =>
    page(reply, 404, renderMessagePage('Checkout not found', 'This checkout link is not valid. Please return to the shop.'));

  async function render(reply: FastifyReply, order: SimpleOrderRow, status = 200, extra: Partial<SimplePageModel> = {}) {
    const payments = await getPaymentsSetting(db);
    const options =
      order.status === 'pending' && isFiatCurrency(order.fiatCurrency)
        ? await paymentOptions(providers, order.fiatAmountMinor, order.fiatCurrency, order.walletCurrency as Asset, order.walletNetwork as Network, (err) =>
            reply.log.warn({ err }, 'provider quote failed'),
          )
        : [];
    const model: SimplePageModel = {
      order,
      fiatAmount: fiatText(order),
      usdAmount: formatCrypto(order.amountUsdMicro),
      options,
      paymentsEnabled: payments.enabled,
      ...extra,
    };
    return page(reply, status, renderSimplePage(model), order);
  }

  function failure(err: unknown): { status: number; notice: string } {
    if (err instanceof AppError) return { status: err.status, notice: err.message };
    return { status: 502, notice: 'The payment could not be started. Please try again.' };
  }

  app.addHook('preHandler', async (request, reply) => {
    if (isForeignFormPost(request, ownOrigin)) {
      return page(reply, 403, renderMessagePage('Not allowed', 'This action must come from the checkout page.'));
    }
  });

  app.get('/pay/simple-assets/simple-order.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff').send(SIMPLE_PAGE_JS),
  );
  app.get('/pay/simple-assets/simple-order.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff').send(SIMPLE_PAGE_CSS),
  );

  app.get<{ Params: { code: string }; Querystring: { method?: string } }>(`/pay/${CODE}`, { schema: { hide: true } }, async (request, reply) => {
    const order = await findVisibleSimpleOrder(db, request.params.code.toLowerCase());
    if (!order) return notFoundPage(reply);
    const rail = typeof request.query.method === 'string' ? findRail(request.query.method) : undefined;
    if (!rail || rail.type !== 'crypto' || order.status !== 'pending') return render(reply, order);
    if (!(await getPaymentsSetting(db)).enabled) return render(reply, order, 403);
    try {
      const instructions = await choosePayment(temporal, order.transactionCode, rail.slug);
      if (instructions.type !== 'crypto') return render(reply, order);
      const qrSvg = await QRCode.toString(instructions.address, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      const fresh = (await findVisibleSimpleOrder(db, order.transactionCode)) ?? order;
      return render(reply, fresh, 200, { crypto: { instructions, qrSvg } });
    } catch (err) {
      const { status, notice } = failure(err);
      if (status >= 500) reply.log.error({ err, transactionCode: order.transactionCode }, 'simple order rail failed');
      return render(reply, (await findVisibleSimpleOrder(db, order.transactionCode)) ?? order, status, { notice });
    }
  });

  app.post<{ Params: { code: string }; Body: { payment_method?: string } | undefined }>(
    `/pay/${CODE}/start`,
    { schema: { hide: true } },
    async (request, reply) => {
      const order = await findVisibleSimpleOrder(db, request.params.code.toLowerCase());
      if (!order) return notFoundPage(reply);
      const rail = findRail(request.body?.payment_method ?? DEFAULT_FIAT_RAIL);
      if (!rail) return render(reply, order, 422, { notice: 'Unknown payment method.' });
      if (rail.type === 'crypto') return reply.redirect(`/pay/${order.transactionCode}?method=${rail.slug}`, 303);
      if (order.status !== 'pending') return render(reply, order, 409, { notice: 'This checkout can no longer be paid.' });
      if (!(await getPaymentsSetting(db)).enabled) return render(reply, order, 403, { notice: 'Payments are temporarily unavailable.' });
      try {
        const instructions = await choosePayment(temporal, order.transactionCode, rail.slug);
        if (instructions.type !== 'fiat') return render(reply, order, 409);
        return reply.redirect(instructions.redirectUrl, 303);
      } catch (err) {
        const { status, notice } = failure(err);
        if (status >= 500) reply.log.error({ err, transactionCode: order.transactionCode }, 'simple order start failed');
        return render(reply, (await findVisibleSimpleOrder(db, order.transactionCode)) ?? order, status, { notice });
      }
    },
  );
};

export default simpleHostedRoutes;
