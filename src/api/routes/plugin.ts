import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SitePlatform } from '../../payments/rows';
import { siteOrigin, verifyPluginCredentials } from '../../payments/plugin-credentials';
import { AppError, validationError, type ErrorDetail } from '../../domain/errors';
import { isAtLeastVersion } from '../../domain/semver';
import { siteProofUrl } from '../../domain/site-proof';
import { checkUrlShape, isRelatedHost } from '../../domain/url-policy';
import { connectPluginSite } from '../../payments/site-connection';
import { fetchSiteProof } from '../../webhooks/site-proof';
import { checkWebhookTarget } from '../../webhooks/target-policy';
import type { CheckoutRequest, PaymentContext } from '../../payments';
import { checkoutUrlFor } from '../checkout/views';
import { withCredentialLimits } from '../plugins/rate-limit';
import { createCheckoutSessionBody } from './checkout-sessions';

// The plugin surface: snake_case bodies, a handshake that authenticates by body
// fields, and a checkout create that reuses the one checkout implementation.

export const PLATFORMS = [
  'woocommerce',
  'shopify',
  'magento',
  'prestashop',
  'opencart',
  'custom',
] as const satisfies readonly SitePlatform[];
export const MIN_PLUGIN_VERSION = '1.1.0';

const credential = z.string().max(200);

const connectBody = z.strictObject({
  merchant_id: credential,
  api_key: credential,
  security_code: credential,
  platform: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(PLATFORMS, { message: `must be one of ${PLATFORMS.join(', ')}` })),
  site_url: z.string().min(1).max(2048),
  callback_url: z.string().min(1).max(2048),
  plugin_version: z
    .string()
    .max(64)
    .refine(
      (v) => isAtLeastVersion(v, MIN_PLUGIN_VERSION),
      `must be a semantic version, ${MIN_PLUGIN_VERSION} or later: update the plugin`,
    ),
});

const connectResponse = z.object({
  ok: z.literal(true),
  status: z.literal('connected'),
  merchant_id: z.string(),
  site_id: z.string(),
  environment: z.literal('live'),
  platform: z.enum(PLATFORMS),
  site_url: z.string(),
  callback_url: z.string(),
  webhook_secret: z.string(),
  message: z.string(),
});

// Before proof of control: the same fields, status pending_verification, and what to serve where.
const pendingResponse = connectResponse.extend({
  status: z.literal('pending_verification'),
  verification: z.object({
    method: z.literal('well_known_file'),
    url: z.string(),
    token: z.string(),
    last_check: z.string().nullable(),
  }),
});

const PROOF_TIMEOUT_MS = 5_000;

const v1 = createCheckoutSessionBody.shape;

// Required order_id, amount, currency, country_code, store_url; the rest optional.
const pluginCheckoutBody = z.strictObject({
  order_id: v1.orderId.unwrap(),
  order_key: z.string().min(1).max(200).optional(),
  store_url: v1.successUrl.unwrap(),
  amount: v1.amount,
  currency: v1.currency,
  country_code: v1.countryCode,
  customer_email: v1.customerEmail,
  crypto_asset: z
    .string()
    .regex(/^[A-Za-z0-9]{2,16}_[A-Za-z0-9]{2,32}$/, 'must be <ASSET>_<NETWORK>, e.g. USDC_POLYGON')
    .optional(),
  success_url: v1.successUrl,
  cancel_url: v1.cancelUrl,
  callback_url: v1.webhookUrl,
});

const pluginCheckoutResponse = z.object({
  success: z.literal(true),
  session_id: z.string(),
  checkout_url: z.string(),
  expires_at: z.string(),
});

// Checkout validation speaks the v1 names; plugin clients sent the snake_case ones.
const SNAKE_PATHS: Record<string, string> = {
  amount: 'amount',
  currency: 'currency',
  countryCode: 'country_code',
  destinationAsset: 'crypto_asset',
  network: 'crypto_asset',
  customerEmail: 'customer_email',
  orderId: 'order_id',
  successUrl: 'success_url',
  cancelUrl: 'cancel_url',
  webhookUrl: 'callback_url',
};

const pluginRoutes: FastifyPluginAsyncZod<PaymentContext> = async (app, deps) => {
  const { config, db, now } = deps;

  app.post(
    '/plugin/connect',
    {
      // Before body validation: a client sending its key in a header is misconfigured, whatever its body.
      preValidation: async (request) => {
        if (request.headers.authorization !== undefined) {
          throw new AppError(
            'Unauthorized',
            'Plugin connect takes merchant_id, api_key and security_code in the body; send no Authorization header.',
          );
        }
      },
      schema: {
        operationId: 'connectPlugin',
        tags: ['plugin'],
        summary: 'Connect (or reconnect) a website plugin',
        description:
          'Credentials travel in the body, never in an Authorization header. A new website is answered 202 with status pending_verification and a token: serve it as the body of https://<site>/.well-known/svc-checkout.txt and connect again, which answers 200 with status connected. Reconnecting the same website returns the same site_id and webhook_secret. Failed attempts are rate limited (429 with Retry-After).',
        body: connectBody,
        response: { 200: connectResponse, 202: pendingResponse },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const details: ErrorDetail[] = [];
      const origin = checkUrlShape(body.site_url, { allowPrivate: true }).ok ? siteOrigin(body.site_url) : null;
      if (!origin) details.push({ path: 'site_url', message: 'must be an absolute http(s) URL' });
      const callbackShape = checkUrlShape(body.callback_url, { allowPrivate: config.allowPrivateUrls });
      if (!callbackShape.ok) details.push({ path: 'callback_url', message: `URL ${callbackShape.reason}` });
      else if (origin && !isRelatedHost(body.callback_url, body.site_url)) {
        details.push({ path: 'callback_url', message: "must be on the site's host or share its registrable domain" });
      }
      if (details.length > 0) throw validationError(details, 'The plugin connection is not valid.');

      const merchant = await withCredentialLimits(db, { merchantId: body.merchant_id, ip: request.ip }, (tx) =>
        verifyPluginCredentials(tx, body, now()),
      );

      // Resolved only for an authenticated caller: nobody else gets the service to look names up.
      const refusal = await checkWebhookTarget(body.callback_url, config.allowPrivateUrls);
      if (refusal) throw validationError([{ path: 'callback_url', message: refusal }], 'The plugin connection is not valid.');

      const result = await connectPluginSite(
        {
          db,
          secretsKey: config.secretsKey,
          fetchProof: (url) => fetchSiteProof(url, { allowPrivate: config.allowPrivateUrls, timeoutMs: PROOF_TIMEOUT_MS }),
        },
        {
          merchantId: merchant.id,
          origin: origin!,
          siteUrl: body.site_url,
          callbackUrl: body.callback_url,
          platform: body.platform,
          pluginVersion: body.plugin_version,
        },
      );
      // Said only to a caller who has just proved control of the site: it may know the site is held.
      if (result.kind === 'held_elsewhere') {
        throw new AppError(
          'Conflict',
          'This website is connected to another account. You have proved control of it: ask the operator to move the connection.',
        );
      }
      const { site, webhookSecret, created } = result;
      request.log.info({ merchantId: merchant.id, siteId: site.id, created, status: site.status }, 'plugin site connect');
      const fields = {
        ok: true as const,
        merchant_id: merchant.id,
        site_id: site.id,
        environment: 'live' as const,
        platform: site.platform,
        site_url: site.siteUrl,
        callback_url: site.callbackUrl,
        webhook_secret: webhookSecret,
      };
      if (result.kind === 'pending') {
        const url = siteProofUrl(site.origin);
        return reply.status(202).send({
          ...fields,
          status: 'pending_verification' as const,
          message: `Serve the verification token as the body of ${url}, then connect again with the same request to activate the connection.${result.lastCheck ? ` Last check: ${result.lastCheck}.` : ''}`,
          verification: { method: 'well_known_file' as const, url, token: site.verificationToken, last_check: result.lastCheck },
        });
      }
      return reply.status(200).send({
        ...fields,
        status: 'connected' as const,
        message: created
          ? 'The website is connected. Store webhook_secret to verify webhook signatures.'
          : 'The website is connected; its site_id and webhook_secret are unchanged.',
      });
    },
  );

  app.post(
    '/checkout-sessions',
    {
      preHandler: [app.requireScope('checkout_sessions:create'), (request, reply) => app.idempotent(request, reply)],
      schema: {
        operationId: 'createPluginCheckoutSession',
        tags: ['plugin'],
        summary: 'Create a hosted checkout session for a connected website (plugin-compatible)',
        description:
          'store_url must be a website connected with POST /plugin/connect. Send an Idempotency-Key header to make retries safe.',
        security: [{ apiKey: [] }],
        headers: z.object({ 'idempotency-key': z.string().max(255).optional() }),
        body: pluginCheckoutBody,
        response: { 201: pluginCheckoutResponse },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const merchant = request.merchant!;
      const origin = siteOrigin(body.store_url);
      // Only the merchant's own claim is looked at: another merchant's site is answered like an unknown one.
      const site = origin ? await app.payments.findOwnSite(origin, merchant.id) : undefined;
      if (!site) {
        throw validationError([
          { path: 'store_url', message: 'is not a website connected to this merchant; connect it with the plugin first' },
        ]);
      }
      if (site.status !== 'connected') {
        throw new AppError(
          'Conflict',
          `The website ${site.origin} is not verified yet: serve its verification token at ${siteProofUrl(site.origin)} and connect again with the plugin.`,
        );
      }
      if (body.callback_url && !isRelatedHost(body.callback_url, site.siteUrl)) {
        throw validationError([{ path: 'callback_url', message: "must be on the site's host or share its registrable domain" }]);
      }
      const [asset, network] = body.crypto_asset ? body.crypto_asset.split('_') : [];
      const checkout: CheckoutRequest = {
        amount: body.amount,
        currency: body.currency,
        countryCode: body.country_code,
        destinationAsset: asset,
        network,
        customerEmail: body.customer_email,
        orderId: body.order_id,
        successUrl: body.success_url,
        cancelUrl: body.cancel_url,
        webhookUrl: body.callback_url,
        siteId: site.id,
        orderKey: body.order_key,
      };
      let session;
      try {
        session = await app.payments.openCheckoutSession(merchant, checkout, 'plugin');
      } catch (err) {
        if (err instanceof AppError && err.options.details) {
          const details = err.options.details.map((d) => ({ ...d, path: SNAKE_PATHS[d.path] ?? d.path }));
          throw new AppError(err.code, err.message, { ...err.options, details });
        }
        throw err;
      }
      return reply.status(201).send({
        success: true as const,
        session_id: session.id,
        checkout_url: checkoutUrlFor(config.http.publicBaseUrl, session.id),
        expires_at: session.expiresAt.toISOString(),
      });
    },
  );
};

export default pluginRoutes;
