import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { PaymentLinkRow } from '../../payments/rows';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError, notFound } from '../../domain/errors';
import { isPaymentLinkId } from '../../domain/ids';
import { negotiateLocale, type PageLocale } from '../../domain/locales';
import { formatFiat } from '../../domain/money';
import { LinkPaymentInProgress, MerchantNotAccepting, type PaymentContext } from '../../payments';
import { linkPageStatuses } from '../../payments/customer-status';
import type { StatusStreams } from '../live-status';
import { checkoutUrlFor } from '../checkout/views';
import { renderMessagePage } from '../hosted/checkout-page';
import { pageText } from '../hosted/i18n';
import { renderLinkPage } from '../hosted/link-page';
import { cookieValue, navigates, redirectToPage, takeNotice } from '../hosted/after-post';

const COUNTRY = /^[A-Za-z]{2}$/;

/**
 * Names the checkout session this browser opened from a link, so pressing Pay again goes back to it
 * (payments/payment-links.ts checks it belongs to the link and is still open). Scoped to the link's
 * path, so each link has its own; HttpOnly, and SameSite=Lax: sent by the page's own form only.
 */
const SESSION_COOKIE = 'svc_link_session';

/** Every ISO 3166-1 alpha-2 code the runtime can name; the providers decide which of them are offered. */
function namedRegions(locale: PageLocale): { code: string; name: string }[] {
  const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' });
  const out: { code: string; name: string }[] = [];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = names.of(code);
      if (name) out.push({ code, name });
    }
  }
  return out.sort((x, y) => x.name.localeCompare(y.name, locale));
}

/** The payment link page (GET /link/:id) and its one action, Pay (POST /link/:id/pay). */
const hostedLinkRoutes: FastifyPluginAsync<PaymentContext & { streams: StatusStreams }> = async (
  app,
  { config, db, now, providers, streams },
) => {
  const payments = app.payments;
  // The page's live status: whether the link can still be paid (paid by someone, or expired, since it was drawn).
  const live = streams.topic((ids) => linkPageStatuses({ db, now }, ids));
  const ownOrigin = new URL(config.http.publicBaseUrl).origin;
  const regionsByLocale = new Map<PageLocale, { code: string; name: string }[]>();
  const countriesByCurrency = new Map<string, { code: string; name: string }[]>();
  // Country names in the customer's language, sorted as that language sorts them.
  const countriesFor = (currency: string, locale: PageLocale) => {
    const key = `${locale}:${currency}`;
    let list = countriesByCurrency.get(key);
    if (!list) {
      let regions = regionsByLocale.get(locale);
      if (!regions) regionsByLocale.set(locale, (regions = namedRegions(locale)));
      list = regions.filter((r) => providers.route(r.code, currency) !== undefined);
      countriesByCurrency.set(key, list);
    }
    return list;
  };
  const textFor = (request: FastifyRequest) => pageText(negotiateLocale(request.headers['accept-language']));

  const notFoundPage = (request: FastifyRequest, reply: FastifyReply) => {
    const { t, locale } = textFor(request);
    return reply.page(404, renderMessagePage(t('link.notFoundTitle'), t('link.notFoundBody'), undefined, locale));
  };

  async function renderFor(
    request: FastifyRequest,
    reply: FastifyReply,
    link: PaymentLinkRow,
    status = 200,
    noticeKey?: string,
    selectedCountry?: string,
  ) {
    const text = textFor(request);
    // What a redirected form post could not do, said once on the page it landed on.
    const keys = noticeKey ? [noticeKey] : takeNotice(request, reply, `/link/${link.id}`);
    const notice = keys.length > 0 ? keys.map((k) => text.t(k, { currency: link.currency })).join(' ') : undefined;
    const [merchantName, paymentsEnabled, merchantAccepting] = await Promise.all([
      payments.pages.merchantName(link.merchantId),
      payments.pages.paymentsEnabled(),
      payments.merchantTakesPayments(link.merchantId),
    ]);
    const amount = isFiatCurrency(link.currency) ? formatFiat(link.amountMinor, link.currency) : String(link.amountMinor);
    const page = renderLinkPage({
      link,
      status: payments.linkStatus(link),
      amount,
      merchantName: merchantName ?? text.t('common.theMerchant'),
      paymentsEnabled,
      merchantAccepting,
      countries: countriesFor(link.currency, text.locale),
      selectedCountry,
      notice,
      text,
    });
    // The form may lead only here and to the checkout page it redirects to; a page with nothing left to
    // follow (paid, expired) has no script at all.
    const scripts = payments.linkStatus(link) === 'active';
    return reply.header('vary', 'accept-language').page(status, page, { formTargets: [ownOrigin], scripts });
  }

  // ?country=XX: the country chosen before, kept when a refused Pay comes back here (post/redirect/get).
  app.get<{ Params: { id: string }; Querystring: { country?: unknown } }>(
    '/link/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      const link = await payments.findLink(request.params.id);
      if (!link) return notFoundPage(request, reply);
      const country =
        typeof request.query.country === 'string' && COUNTRY.test(request.query.country) ? request.query.country.toUpperCase() : undefined;
      return renderFor(request, reply, link, 200, undefined, country);
    },
  );

  // The page's live status as server-sent events (api/live-status.ts), like a session's.
  app.get<{ Params: { id: string } }>('/link/:id/events', { schema: { hide: true } }, async (request, reply) => {
    const first = isPaymentLinkId(request.params.id) ? await live.read(request.params.id) : undefined;
    if (!first) throw notFound('Payment link');
    live.serve(request, reply, request.params.id, first);
  });

  // The form's URL as a restored tab or an old history entry may GET it: the link's page.
  app.get<{ Params: { id: string } }>('/link/:id/pay', { schema: { hide: true } }, async (request, reply) =>
    reply.redirect(`/link/${encodeURIComponent(request.params.id)}`, 303),
  );

  app.post<{ Params: { id: string }; Body: { country?: unknown } | undefined }>(
    '/link/:id/pay',
    { schema: { hide: true } },
    async (request, reply) => {
      const link = await payments.findLink(request.params.id);
      if (!link) return notFoundPage(request, reply);
      const country = typeof request.body?.country === 'string' ? request.body.country.trim() : '';
      // A browser goes back to the link's GET URL with what happened (post/redirect/get); another client
      // gets the page with the refusal's status.
      const refuse = (status: number, noticeKey?: string, selected?: string) =>
        navigates(request)
          ? redirectToPage(
              reply,
              `/link/${link.id}${selected ? `?country=${selected}` : ''}`,
              `/link/${link.id}`,
              noticeKey ? [noticeKey] : [],
            )
          : renderFor(request, reply, link, status, noticeKey, selected);
      if (payments.linkStatus(link) !== 'active') return refuse(409, 'link.cannotPay');
      if (!COUNTRY.test(country)) return refuse(422, 'link.chooseCountry');
      try {
        const previousSessionId = cookieValue(request.headers.cookie, SESSION_COOKIE);
        const { session, reused } = await payments.payLink(link, country, { clientAddress: request.ip, previousSessionId });
        if (!reused) {
          const maxAge = Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
          const secure = config.http.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
          void reply.header(
            'set-cookie',
            `${SESSION_COOKIE}=${session.id}; Path=/link/${link.id}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`,
          );
        }
        return reply.redirect(checkoutUrlFor(config.http.publicBaseUrl, session.id), 303);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const selected = country.toUpperCase();
        if (err.code === 'RateLimited') {
          void reply.header('retry-after', String(err.options.retryAfterSeconds ?? 60));
          return refuse(429, 'link.tooMany', selected);
        }
        // The page says it in place of the form.
        if (err instanceof MerchantNotAccepting) return refuse(403, undefined, selected);
        if (err.code === 'ValidationError') {
          const byCountry = err.options.details?.some((d) => d.path === 'countryCode');
          return refuse(422, byCountry ? 'link.countryUnavailable' : 'link.cannotPayNow', selected);
        }
        // The page says it (payments paused).
        if (err.code === 'PaymentsDisabled') return refuse(403, undefined, selected);
        if (err.code === 'Unavailable') return refuse(503, 'link.couldNotStart', selected);
        if (err instanceof LinkPaymentInProgress) return refuse(409, 'common.linkInProgress', selected);
        return refuse(err.status, 'link.cannotPayNow', selected);
      }
    },
  );
};

export default hostedLinkRoutes;
