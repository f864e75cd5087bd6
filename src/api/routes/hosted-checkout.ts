import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Config } from '../../config';
import type { Database } from '../../db/client';
import { findVisibleSession, type CheckoutSessionRow } from '../../db/queries/checkout-sessions';
import { findMerchant } from '../../db/queries/merchants';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import { isFiatCurrency } from '../../domain/currencies';
import { isCanonicalPaymentId } from '../../domain/ids';
import { formatFiat } from '../../domain/money';
import { cancelUpdate, startPaymentUpdate } from '../../workflows/checkout-session/messages';
import { renderCheckoutPage, renderMessagePage } from '../hosted/checkout-page';
import { isUnavailable } from '../plugins/errors';
import { isForeignFormPost } from '../hosted/same-origin';

const ASSETS_DIR = path.join(__dirname, '..', 'hosted', 'assets');
const UPDATE_DEADLINE_MS = 30_000;

interface Deps {
  config: Config;
  db: Database;
  temporal: Client;
  /** Origins the page's forms may lead to (the providers' payment pages). */
  providerOrigins: string[];
}

const originOf = (url: string | null | undefined) => {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
};

/** The hosted checkout page and the two actions a customer takes on it: pay and cancel. */
const hostedCheckoutRoutes: FastifyPluginAsync<Deps> = async (app, { config, db, temporal, providerOrigins }) => {
  // A Map, not an object literal: a file named __proto__ or constructor must be a 404, not a lookup
  // into Object.prototype.
  const assets = new Map([
    ['checkout.css', { body: readFileSync(path.join(ASSETS_DIR, 'checkout.css')), type: 'text/css; charset=utf-8' }],
    ['checkout.js', { body: readFileSync(path.join(ASSETS_DIR, 'checkout.js')), type: 'text/javascript; charset=utf-8' }],
  ]);
  const ownOrigin = new URL(config.http.publicBaseUrl).origin;

  // The page's forms post url-encoded bodies with nothing we read; accept and ignore them.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, _body, done) => done(null, {}));

  function securityHeaders(reply: FastifyReply, session?: CheckoutSessionRow) {
    // form-action also governs where a form's redirect may go, so it names the provider's page
    // (after Pay) and the merchant's cancel URL (after Cancel).
    const formTargets = ["'self'", ...providerOrigins, originOf(session?.cancelUrl)].filter(Boolean).join(' ');
    void reply
      .header(
        'content-security-policy',
        `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
      )
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store');
  }

  function page(reply: FastifyReply, status: number, body: string, session?: CheckoutSessionRow) {
    securityHeaders(reply, session);
    return reply.status(status).type('text/html; charset=utf-8').send(body);
  }

  async function loadSession(id: string) {
    return isCanonicalPaymentId(id) ? findVisibleSession(db, id) : undefined;
  }

  async function renderFor(reply: FastifyReply, session: CheckoutSessionRow, status = 200, notice?: string) {
    const [merchant, payments] = await Promise.all([findMerchant(db, session.merchantId), getPaymentsSetting(db)]);
    const amount = isFiatCurrency(session.currency) ? formatFiat(session.amountMinor, session.currency) : String(session.amountMinor);
    return page(
      reply,
      status,
      renderCheckoutPage({ session, amount, merchantName: merchant?.name ?? 'the merchant', paymentsEnabled: payments.enabled, notice }),
      session,
    );
  }

  const notFoundPage = (reply: FastifyReply) =>
    page(reply, 404, renderMessagePage('Checkout not found', 'This checkout link is not valid. Please return to the merchant.'));

  app.addHook('preHandler', async (request, reply) => {
    if (isForeignFormPost(request, ownOrigin)) {
      return page(reply, 403, renderMessagePage('Not allowed', 'This action must come from the checkout page.'));
    }
  });

  app.get<{ Params: { file: string } }>('/pay/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) return notFoundPage(reply);
    return reply.type(asset.type).header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff').send(asset.body);
  });

  app.get<{ Params: { id: string } }>('/pay/:id', { schema: { hide: true } }, async (request, reply) => {
    const session = await loadSession(request.params.id);
    if (!session) return notFoundPage(reply);
    return renderFor(reply, session);
  });

  app.post<{ Params: { id: string } }>('/pay/:id/start', { schema: { hide: true } }, async (request, reply) => {
    const session = await loadSession(request.params.id);
    if (!session) return notFoundPage(reply);
    if (session.mode === 'test' || session.status !== 'pending') return renderFor(reply, session, 409, 'This checkout can no longer be paid.');
    if (!(await getPaymentsSetting(db)).enabled) return renderFor(reply, session, 403, 'Payments are temporarily unavailable.');
    try {
      const started = await temporal.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        temporal.workflow.getHandle(session.id).executeUpdate(startPaymentUpdate),
      );
      return reply.redirect(started.redirectUrl, 303);
    } catch (err) {
      return actionFailed(reply, session, err, 'The payment could not be started.');
    }
  });

  app.post<{ Params: { id: string } }>('/pay/:id/cancel', { schema: { hide: true } }, async (request, reply) => {
    const session = await loadSession(request.params.id);
    if (!session) return notFoundPage(reply);
    if (session.mode === 'test' || session.status !== 'pending') return renderFor(reply, session, 409, 'This checkout can no longer be canceled.');
    try {
      const status = await temporal.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        temporal.workflow.getHandle(session.id).executeUpdate(cancelUpdate),
      );
      if (status === 'canceled' && session.cancelUrl) return reply.redirect(session.cancelUrl, 303);
      return reply.redirect(`/pay/${session.id}`, 303);
    } catch (err) {
      return actionFailed(reply, session, err, 'The checkout could not be canceled.');
    }
  });

  async function actionFailed(reply: FastifyReply, session: CheckoutSessionRow, err: unknown, message: string) {
    const fresh = (await findVisibleSession(db, session.id)) ?? session;
    // Rejected by the workflow (no longer pending), or the workflow has already closed.
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) return renderFor(reply, fresh, 409, message);
    if (isUnavailable(err)) return renderFor(reply, fresh, 503, `${message} Please try again in a moment.`);
    reply.log.error({ err, paymentId: session.id }, 'hosted checkout action failed');
    return renderFor(reply, fresh, 502, `${message} Please try again.`);
  }
};

export default hostedCheckoutRoutes;
