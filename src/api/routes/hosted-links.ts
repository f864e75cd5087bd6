import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { findMerchant } from '../../db/queries/merchants';
import { findPaymentLink, PAYMENT_LINK_ID, type PaymentLinkRow } from '../../db/queries/payment-links';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError } from '../../domain/errors';
import { formatFiat } from '../../domain/money';
import { openCheckoutSession, type OpenSessionDeps } from '../checkout/open-session';
import { checkoutUrlFor } from '../checkout/views';
import { renderMessagePage } from '../hosted/checkout-page';
import { renderLinkPage } from '../hosted/link-page';
import type { AuthenticatedMerchant } from '../plugins/merchant-auth';
import { isForeignFormPost } from '../hosted/same-origin';

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
const hostedLinkRoutes: FastifyPluginAsync<OpenSessionDeps> = async (app, deps) => {
  const { config, db, providers, now } = deps;
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

  // Browsers post the form url-encoded; the country is its only field.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });

  function page(reply: FastifyReply, status: number, body: string) {
    // No script at all; the form may lead only here and to the checkout page it redirects to.
    const formTargets = [...new Set(["'self'", ownOrigin])].join(' ');
    return reply
      .status(status)
      .header(
        'content-security-policy',
        `default-src 'none'; style-src 'self'; img-src 'self' data:; form-action ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
      )
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(body);
  }

  const notFoundPage = (reply: FastifyReply) =>
    page(reply, 404, renderMessagePage('Payment link not found', 'This payment link is not valid. Please check it with the merchant.'));

  const loadLink = async (id: string) => (PAYMENT_LINK_ID.test(id) ? findPaymentLink(db, id) : undefined);

  // Its workflow expires the link at expiresAt; until that has run, the clock already says so.
  const statusOf = (link: PaymentLinkRow) => (link.status === 'active' && link.expiresAt <= now() ? 'expired' : link.status);

  async function renderFor(reply: FastifyReply, link: PaymentLinkRow, status = 200, notice?: string, selectedCountry?: string) {
    const [merchant, payments] = await Promise.all([findMerchant(db, link.merchantId), getPaymentsSetting(db)]);
    const amount = isFiatCurrency(link.currency) ? formatFiat(link.amountMinor, link.currency) : String(link.amountMinor);
    return page(
      reply,
      status,
      renderLinkPage({
        link,
        status: statusOf(link),
        amount,
        merchantName: merchant?.name ?? 'the merchant',
        paymentsEnabled: payments.enabled,
        countries: countriesFor(link.currency),
        selectedCountry,
        notice,
      }),
    );
  }

  app.addHook('preHandler', async (request, reply) => {
    if (isForeignFormPost(request, ownOrigin)) {
      return page(reply, 403, renderMessagePage('Not allowed', 'This action must come from the payment link page.'));
    }
  });

  app.get<{ Params: { id: string } }>('/link/:id', { schema: { hide: true } }, async (request, reply) => {
    const link = await loadLink(request.params.id);
    if (!link) return notFoundPage(reply);
    return renderFor(reply, link);
  });

  app.post<{ Params: { id: string }; Body: { country?: unknown } | undefined }>('/link/:id/pay', { schema: { hide: true } }, async (request, reply) => {
    const link = await loadLink(request.params.id);
    if (!link) return notFoundPage(reply);
    // Paid at most once, and never after expiry: no session is created for a closed link.
    if (statusOf(link) !== 'active') return renderFor(reply, link, 409, 'This payment link can no longer be paid.');

    const country = typeof request.body?.country === 'string' ? request.body.country.trim() : '';
    if (!COUNTRY.test(country)) return renderFor(reply, link, 422, 'Please choose your country.');

    const owner = await findMerchant(db, link.merchantId);
    if (!owner || owner.status !== 'approved') return renderFor(reply, link, 403, 'This merchant is not accepting payments right now.');
    // The link acts for its merchant as a key would; no key is involved, so no scopes either.
    const merchant: AuthenticatedMerchant = { id: owner.id, name: owner.name, commissionBps: owner.commissionBps, keyId: link.id, scopes: [] };

    try {
      const session = await openCheckoutSession(
        deps,
        merchant,
        {
          amount: formatFiatOrThrow(link),
          currency: link.currency,
          countryCode: country,
          destinationAsset: link.destinationAsset,
          network: link.network,
          merchantOrderId: link.merchantOrderId ?? undefined,
          paymentLinkId: link.id,
        },
        'payment_link',
      );
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
      throw err;
    }
  });
};

/** The stored amount as the decimal text checkout parses back to the same minor units: no float in between. */
function formatFiatOrThrow(link: PaymentLinkRow): string {
  if (!isFiatCurrency(link.currency)) throw new Error(`unknown currency ${link.currency}`);
  return formatFiat(link.amountMinor, link.currency);
}

export default hostedLinkRoutes;
