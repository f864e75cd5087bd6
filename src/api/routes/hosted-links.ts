import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { findMerchant } from '../../db/queries/merchants';
import type { PaymentLinkRow } from '../../db/queries/payment-links';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError } from '../../domain/errors';
import { formatFiat } from '../../domain/money';
import type { PaymentContext } from '../../payments';
import { checkoutUrlFor } from '../checkout/views';
import { renderMessagePage } from '../hosted/checkout-page';
import { renderLinkPage } from '../hosted/link-page';

const COUNTRY = /^[A-Za-z]{2}$/;

/** Every ISO 3166-1 alpha-2 code the runtime can name; the providers decide which of them are offered. */
function namedRegions(): { code: string; name: string }[] {
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const out: { code: string; name: string }[] = [];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = names.of(code);
      if (name) out.push({ code, name });
    }
  }
  return out.sort((x, y) => x.name.localeCompare(y.name, 'en'));
}

/** The payment link page (GET /link/:id) and its one action, Pay (POST /link/:id/pay). */
const hostedLinkRoutes: FastifyPluginAsync<PaymentContext> = async (app, { config, db, providers }) => {
  const payments = app.payments;
  const ownOrigin = new URL(config.http.publicBaseUrl).origin;
  const regions = namedRegions();
  const countriesByCurrency = new Map<string, { code: string; name: string }[]>();
  const countriesFor = (currency: string) => {
    let list = countriesByCurrency.get(currency);
    if (!list) {
      list = regions.filter((r) => providers.route(r.code, currency) !== undefined);
      countriesByCurrency.set(currency, list);
    }
    return list;
  };

  const notFoundPage = (reply: FastifyReply) =>
    reply.page(404, renderMessagePage('Payment link not found', 'This payment link is not valid. Please check it with the merchant.'));

  async function renderFor(reply: FastifyReply, link: PaymentLinkRow, status = 200, notice?: string, selectedCountry?: string) {
    const [merchant, setting] = await Promise.all([findMerchant(db, link.merchantId), getPaymentsSetting(db)]);
    const amount = isFiatCurrency(link.currency) ? formatFiat(link.amountMinor, link.currency) : String(link.amountMinor);
    const page = renderLinkPage({
      link,
      status: payments.linkStatus(link),
      amount,
      merchantName: merchant?.name ?? 'the merchant',
      paymentsEnabled: setting.enabled,
      countries: countriesFor(link.currency),
      selectedCountry,
      notice,
    });
    // No script at all; the form may lead only here and to the checkout page it redirects to.
    return reply.page(status, page, { formTargets: [ownOrigin], scripts: false });
  }

  app.get<{ Params: { id: string } }>('/link/:id', { schema: { hide: true } }, async (request, reply) => {
    const link = await payments.findLink(request.params.id);
    if (!link) return notFoundPage(reply);
    return renderFor(reply, link);
  });

  app.post<{ Params: { id: string }; Body: { country?: unknown } | undefined }>('/link/:id/pay', { schema: { hide: true } }, async (request, reply) => {
    const link = await payments.findLink(request.params.id);
    if (!link) return notFoundPage(reply);
    if (payments.linkStatus(link) !== 'active') return renderFor(reply, link, 409, 'This payment link can no longer be paid.');
    const country = typeof request.body?.country === 'string' ? request.body.country.trim() : '';
    if (!COUNTRY.test(country)) return renderFor(reply, link, 422, 'Please choose your country.');
    try {
      const session = await payments.payLink(link, country);
      return reply.redirect(checkoutUrlFor(config.http.publicBaseUrl, session.id), 303);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const selected = country.toUpperCase();
      if (err.code === 'ValidationError') {
        const byCountry = err.options.details?.some((d) => d.path === 'countryCode');
        return renderFor(reply, link, 422, byCountry ? `Payments from this country in ${link.currency} are not available.` : 'This payment link cannot be paid right now.', selected);
      }
      if (err.code === 'PaymentsDisabled') return renderFor(reply, link, 403, 'Payments are temporarily unavailable.', selected);
      if (err.code === 'Unavailable') return renderFor(reply, link, 503, 'The payment could not be started. Please try again in a moment.', selected);
      return renderFor(reply, link, err.status, err.message, selected);
    }
  });
};

export default hostedLinkRoutes;
