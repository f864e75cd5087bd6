import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { DOCS_THEME_CSS, DOCS_THEME_JS } from './docs-theme';
import type { Client } from '@temporalio/client';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config';
import type { DbHandle } from '../db/client';
import { randomBase62 } from '../domain/ids';
import { OneLinePerRequest, requestChildLogger, requestIdMixin, serializeError, serializeRequest } from './log-serializers';
import errors, { clientErrorHandler, frameworkErrorHandler } from './plugins/errors';
import { completeDocument, type OpenApiDocument } from './openapi';
import { WEBHOOK_SCHEMAS } from './webhook-schemas';
import inputHygiene from './plugins/input-hygiene';
import merchantAuth, { type FoundKey } from './plugins/merchant-auth';
import { createKeyRateLimiter } from './plugins/rate-limit';
import { createTtlCache } from './plugins/ttl-cache';
import metrics from './plugins/metrics';
import healthRoutes from './routes/health';
import notImplementedRoutes from './routes/not-implemented';
import adminMerchantRoutes from './routes/admin/merchants';
import adminMerchantCredentialRoutes from './routes/admin/merchant-credentials';
import adminSettingsRoutes from './routes/admin/settings';
import adminWebhookRoutes from './routes/admin/webhooks';
import adminWebhookEndpointRoutes from './routes/admin/webhook-endpoints';
import adminPaymentRoutes from './routes/admin/payments';
import adminPaymentProofRoutes from './routes/admin/payment-proof';
import adminSimpleOrderRoutes from './routes/admin/simple-orders';
import adminChainRoutes from './routes/admin/chains';
import adminReconciliationRoutes from './routes/admin/reconciliation';
import adminTreasuryRoutes from './routes/admin/treasury';
import adminSettlementRoutes from './routes/admin/settlements';
import adminExceptionRoutes from './routes/admin/exceptions';
import adminPayoutRoutes from './routes/admin/payouts';
import { adminAuth } from './plugins/admin-auth';
import idempotency from './plugins/idempotency';
import checkoutSessionRoutes from './routes/checkout-sessions';
import balanceRoutes from './routes/balance';
import settlementRoutes from './routes/settlements';
import checkoutEventRoutes from './routes/checkout-events';
import { createStatusStreams, type LiveStatusSettings } from './live-status';
import paymentLookupRoutes from './routes/payment-lookups';
import merchantEventRoutes, { type EventStreamSettings } from './routes/merchant-events';
import providerCallbackRoutes from './routes/provider-callbacks';
import hostedPages from './hosted/plugin';
import dashboard from './dashboard/plugin';
import pluginRoutes from './routes/plugin';
import paymentLinkRoutes from './routes/payment-links';
import simpleApiRoutes from './routes/simple-api';
import type { ProviderRegistry } from '../providers/registry';
import { createPaymentService, type PaymentService } from '../payments';
import { merchantMoney } from '../payments/merchant-money';
import { createAccountServices } from '../accounts';
import { createMailer } from '../mail/mailer';
import { businessLog, REDACTED_PATHS, type BusinessLog } from '../logging';
import { registerExplorers } from '../domain/explorers';
import { createResponseSerializerCompiler } from './response-serializer';

declare module 'fastify' {
  interface FastifyInstance {
    /** The payment engine's use cases: what every payment route calls. */
    payments: PaymentService;
  }
}

export interface AppDeps {
  config: Config;
  db: DbHandle;
  temporal: Client;
  providers: ProviderRegistry;
  /** Derived from SETTLEMENT_MNEMONIC by the entry point (the API never holds the keys); null without one. */
  treasuryAddress?: string | null;
  now?: () => Date;
  /** The customer pages' live status streams (routes/checkout-events.ts); defaults suit production. */
  liveStatus?: LiveStatusSettings;
  /** The merchants' event streams (routes/merchant-events.ts); defaults suit production. */
  eventStream?: EventStreamSettings;
  /** Where the use cases write business events; default: info lines of the app's logger. */
  businessLog?: BusinessLog;
  /** The dashboard's built files (default: dist/dashboard). */
  dashboardDir?: string;
}

// Incoming request ids are echoed only when they are short and plain, so they cannot forge log lines.
const SAFE_REQUEST_ID = /^[A-Za-z0-9_-]{8,64}$/;

// Fastify's defaults, pinned: one spelling of a path reaches one route; another case, doubled
// slashes, a trailing slash or a semicolon reach none (percent-encoding is decoded, as it must be).
// The guards belong to routes, never to request.url, so they hold whichever spelling reaches one.
// (A variable: find-my-way's types do not list useSemicolonDelimiter, which Fastify passes on.)
const ROUTER_OPTIONS = { caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, useSemicolonDelimiter: false };

export async function buildApp(deps: AppDeps, options: { logger?: boolean | object } = {}): Promise<FastifyInstance> {
  const { config } = deps;
  registerExplorers(config.chains.networks);
  const now = deps.now ?? (() => new Date());
  const db = deps.db.db;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            serializers: { req: serializeRequest, err: serializeError },
            mixin: requestIdMixin,
            ...(typeof options.logger === 'object' ? options.logger : {}),
          },
    ...(options.logger === false ? {} : { childLoggerFactory: requestChildLogger, logController: new OneLinePerRequest() }),
    bodyLimit: config.http.bodyLimitBytes,
    routerOptions: ROUTER_OPTIONS,
    // Errors Fastify answers itself (before routing, or before a request exists) use our envelope too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : `req_${randomBase62(20)}`;
    },
    // X-Forwarded-For is believed only from the proxies named in TRUST_PROXY; from
    // anyone else it is a header the client wrote, and the per-IP limits would key on a lie.
    trustProxy: config.http.trustProxy.length > 0 ? config.http.trustProxy : false,
  }).withTypeProvider<ZodTypeProvider>();

  // JSON only: Fastify's default text/plain parser would hand strings to JSON routes (400).
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(createResponseSerializerCompiler({ crossCheck: config.nodeEnv === 'test' }));
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  // Every answer, whoever wrote it (a route, an error, a 404, a framework error): a browser must never
  // guess a type and run a JSON body carrying a merchant's text as a page or a script.
  app.addHook('onSend', async (_request, reply) => {
    void reply.header('x-content-type-options', 'nosniff');
  });

  await app.register(errors);
  // Before every route, so its latency hook sees them all.
  await app.register(metrics, {
    db,
    token: config.metrics.token,
    production: config.nodeEnv === 'production',
    temporal: { client: deps.temporal, taskQueue: config.temporal.taskQueue },
  });
  await app.register(inputHygiene);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc checkout API',
        version: '1.0.0',
        description:
          'Merchant API v1, simple API and operator admin API. Money amounts are decimal strings. ' +
          'GET /api/v1/payments is not implemented (404 NotImplemented): look up each payment with GET /api/v1/transactions/{id}.',
        // The service is self-hosted under the project's own terms (package.json: UNLICENSED).
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'The operator of this deployment', url: config.http.publicBaseUrl },
      },
      servers: [{ url: config.http.publicBaseUrl, description: 'This deployment (PUBLIC_BASE_URL)' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Live API key (svc_live_…)' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN of the deployment' },
        },
      },
    },
    transform: jsonSchemaTransform,
    // What every route shares (operationIds, error answers, admin security, webhook payloads): openapi.ts.
    transformObject: (document) =>
      'openapiObject' in document ? completeDocument(document.openapiObject as OpenApiDocument, WEBHOOK_SCHEMAS) : document.swaggerObject,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The base layout (no top bar: its logo, URL box and toggle had no accessible names) and no deep
    // links (their anchors sat inside each operation's button); contrast fixes in docs-theme.ts.
    uiConfig: { layout: 'BaseLayout', deepLinking: false },
    theme: { css: [{ filename: 'contrast.css', content: DOCS_THEME_CSS }], js: [{ filename: 'example-names.js', content: DOCS_THEME_JS }] },
  });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // Keys authenticated and merchants' names read in the last few seconds (ttl-cache.ts). Every admin
  // or dashboard write empties both before its answer leaves, so a revocation or a suspension holds here at once.
  const keyCache = createTtlCache<FoundKey>({ ttlMs: config.http.apiKeyCacheMs, maxEntries: 10_000 });
  const merchantNames = createTtlCache<string>({ ttlMs: config.http.apiKeyCacheMs, maxEntries: 10_000 });
  app.addHook('onSend', async (request) => {
    const writes = request.method !== 'GET' && request.method !== 'HEAD';
    // The route matched, not the URL as sent: /dashboard/%61pi/… reaches the same route and must empty them too.
    const route = request.routeOptions.url ?? '';
    if (writes && (route.startsWith('/admin/') || route.startsWith('/dashboard/api/'))) {
      keyCache.clear();
      merchantNames.clear();
    }
  });
  await app.register(merchantAuth, { db, now, keyCache, rateLimiter: createKeyRateLimiter(config.http.rateLimitPerSecond) });
  await app.register(idempotency, { db });
  await app.register(healthRoutes, { db: deps.db, temporal: deps.temporal });

  const checkoutDeps = { config, db, temporal: deps.temporal, providers: deps.providers, now };
  // Every face's use cases, built here once: the payment engine, who acts for a merchant, and the
  // mailer they share (verification, invitations, notices, payout mails).
  const mailer = createMailer(config.mail);
  app.addHook('onClose', async () => mailer.close());
  app.decorate(
    'payments',
    createPaymentService({
      ...checkoutDeps,
      treasuryAddress: deps.treasuryAddress ?? null,
      log: deps.businessLog ?? businessLog(app.log),
    }),
  );
  const accounts = createAccountServices({ db, config, mailer, now });
  const money = merchantMoney(app.payments.context, mailer);
  // Every customer page's live status stream (sessions, links, simple orders), under one set of limits.
  const streams = createStatusStreams(deps.liveStatus ?? {}, (err) => app.log.warn({ err }, 'live status read failed'));
  // Before the server stops taking connections: end every stream, or closing would wait for them.
  app.addHook('preClose', async () => streams.close());
  await app.register(
    async (v1) => {
      await v1.register(checkoutSessionRoutes, { ...checkoutDeps, merchantNames });
      await v1.register(checkoutEventRoutes, { config, db, streams });
      await v1.register(pluginRoutes, checkoutDeps);
      await v1.register(paymentLinkRoutes, checkoutDeps);
      await v1.register(paymentLookupRoutes, { config });
      await v1.register(balanceRoutes);
      await v1.register(settlementRoutes);
      await v1.register(merchantEventRoutes, {
        // A stream's key is checked again as often as a cached key is: within the window a revocation takes everywhere.
        stream: {
          recheckMs: config.http.apiKeyCacheMs > 0 ? config.http.apiKeyCacheMs : undefined,
          maxLifetimeMs: config.http.eventStreamMaxSeconds * 1000,
          ...deps.eventStream,
        },
      });
      await v1.register(notImplementedRoutes);
    },
    { prefix: '/api/v1' },
  );
  await app.register(providerCallbackRoutes);
  await app.register(hostedPages, { ...checkoutDeps, providerOrigins: deps.providers.pageOrigins(), streams });
  // The merchant dashboard: its pages and its internal API under /dashboard/.
  await app.register(dashboard, { config, db, now, dir: deps.dashboardDir, accounts, money });
  // The simple API (docs/api.md): no key, orders limited per client address, the { status } envelope.
  await app.register(simpleApiRoutes, { ...checkoutDeps, prefix: '/api' });
  await app.register(
    async (admin) => {
      // onRequest, not preHandler: authentication comes before body parsing and validation.
      admin.addHook('onRequest', adminAuth(db, config.adminToken));
      await admin.register(adminMerchantRoutes);
      await admin.register(adminMerchantCredentialRoutes);
      await admin.register(adminSettingsRoutes);
      await admin.register(adminWebhookEndpointRoutes, { config });
      await admin.register(adminWebhookRoutes, { config });
      await admin.register(adminPaymentRoutes);
      await admin.register(adminPaymentProofRoutes);
      await admin.register(adminSimpleOrderRoutes);
      await admin.register(adminExceptionRoutes);
      await admin.register(adminPayoutRoutes);
      await admin.register(adminChainRoutes, { chains: config.chains, treasuryAddress: deps.treasuryAddress ?? null });
      await admin.register(adminReconciliationRoutes);
      await admin.register(adminTreasuryRoutes);
      await admin.register(adminSettlementRoutes, { now });
    },
    { prefix: '/admin/v1' },
  );

  return app;
}
