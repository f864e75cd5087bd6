import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PAGE_LOCALES } from '../../domain/locales';
import { ASSETS, NETWORKS } from '../../domain/assets';
import { assetName, networkName } from '../closed-values';
import type { PaymentContext } from '../../payments';
import { CHECKOUT_SESSION_LIST_DEFAULT_LIMIT, CHECKOUT_SESSION_LIST_MAX_LIMIT } from '../../payments/checkout-session-list';
import { PAYMENT_STATUSES } from '../../domain/payment-status';
import { checkoutSessionSchema, checkoutSessionView, publicSessionSchema, publicSessionView } from '../checkout/views';
import { requireCanonicalId } from './lookup-id';
import type { TtlCache } from '../plugins/ttl-cache';

const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

const metadataValue = z.union([z.string().max(500), z.number(), z.boolean(), z.null()]);

// Required amount, currency, countryCode; unknown fields are 422. Descriptions and
// examples go into the OpenAPI document (and so into generated clients).
export const createCheckoutSessionBody = z
  .strictObject({
    amount: z
      .number()
      .positive()
      .meta({ description: 'What the customer pays, in major units of `currency` (at most its decimals).', examples: [25] }),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
      .meta({ description: 'ISO 4217 code of the fiat the customer pays in.', examples: ['USD'] }),
    countryCode: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
      .meta({
        description: 'ISO 3166-1 alpha-2 country of the customer; it routes the payment to a provider that serves it.',
        examples: ['US'],
      }),
    destinationAsset: z
      .string()
      .min(1)
      .max(16)
      .optional()
      .meta({ description: 'Stablecoin you are settled in (default USDC; any case).', enum: [...ASSETS], examples: ['USDC'] }),
    network: z
      .string()
      .min(1)
      .max(32)
      .optional()
      .meta({
        description: 'Network you are settled on (default polygon; any case); you need a settlement wallet for the pair.',
        enum: [...NETWORKS],
        examples: ['polygon'],
      }),
    customerEmail: z
      .email()
      .max(254)
      .optional()
      .meta({ description: 'Passed to the provider to prefill its page.', examples: ['customer@example.com'] }),
    orderId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'Your order reference, echoed in lookups and webhooks.', examples: ['order-1042'] }),
    merchantOrderId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'A second reference of yours (plugins use it for the shop order).', examples: ['wc-1042'] }),
    successUrl: httpUrl.optional().meta({
      description: 'Where the customer goes after paying; `{CHECKOUT_SESSION_ID}` is replaced by the session id.',
      examples: ['https://shop.example/thanks?session={CHECKOUT_SESSION_ID}'],
    }),
    cancelUrl: httpUrl.optional().meta({
      description: 'Where the customer goes after canceling, or from an expired or failed checkout.',
      examples: ['https://shop.example/cart'],
    }),
    webhookUrl: httpUrl.optional().meta({
      description:
        'This session’s events are also delivered here, besides every enabled webhook endpoint of yours (one delivery per distinct URL), signed with your merchant default secret.',
      examples: ['https://shop.example/webhooks/payments'],
    }),
    locale: z
      .enum(PAGE_LOCALES)
      .optional()
      .meta({ description: 'Language of the hosted page; without it the customer’s browser (Accept-Language) decides.', examples: ['de'] }),
    metadata: z
      .record(z.string().min(1).max(40), metadataValue)
      .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
      .optional()
      .meta({
        description: 'Up to 50 keys of your own (strings up to 500 characters, numbers, booleans, null), echoed in lookups and webhooks.',
        examples: [{ cartId: 'c_77' }],
      }),
  })
  .meta({
    examples: [
      {
        amount: 25,
        currency: 'USD',
        countryCode: 'US',
        orderId: 'order-1042',
        successUrl: 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}',
        cancelUrl: 'https://shop.example/cart',
        locale: 'en',
      },
    ],
  });

const sessionStatus = z.enum(PAYMENT_STATUSES);
// Postgres has no year 0: an earlier instant would fail in the query rather than be refused here.
const YEAR_ONE = Date.parse('0001-01-01T00:00:00Z');
const instant = z.iso.datetime({ offset: true }).refine((v) => Date.parse(v) >= YEAR_ONE, 'Must be in year 1 or later.');

// The list's filters and page. Strict, as the create body is: a misspelt filter is refused rather
// than silently widening the list to every session.
const listCheckoutSessionsQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(CHECKOUT_SESSION_LIST_MAX_LIMIT)
    .default(CHECKOUT_SESSION_LIST_DEFAULT_LIMIT)
    .meta({ description: `Sessions per page, 1 to ${CHECKOUT_SESSION_LIST_MAX_LIMIT}.`, examples: [20] }),
  cursor: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .meta({
      description: 'The `nextCursor` of the page before; without it, the newest sessions. Only cursors handed to you are accepted.',
      examples: ['WyIyMDI2LTAxLTE1VDEwOjMwOjAwLjAwMDAwMFoiLCJTVl80ZjlhMWMyYjdkOGU2ZjVhNGIzYzJkMWUiXQ'],
    }),
  status: z
    .union([sessionStatus, z.array(sessionStatus).min(1).max(PAYMENT_STATUSES.length)], {
      error: `Each status must be one of ${PAYMENT_STATUSES.join(', ')}.`,
    })
    .optional()
    .meta({
      description: 'Only sessions in this status; repeat it for several (`status=pending&status=processing`).',
      examples: ['completed'],
    }),
  orderId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Only sessions whose orderId or merchantOrderId is exactly this.', examples: ['order-1042'] }),
  createdFrom: instant.optional().meta({
    description: 'Only sessions created at or after this instant (ISO 8601 with Z or an offset).',
    examples: ['2026-01-01T00:00:00Z'],
  }),
  createdTo: instant
    .optional()
    .meta({ description: 'Only sessions created before this instant (ISO 8601 with Z or an offset).', examples: ['2026-02-01T00:00:00Z'] }),
});

const checkoutSessionRoutes: FastifyPluginAsyncZod<PaymentContext & { merchantNames: TtlCache<string> }> = async (app, deps) => {
  // The public lookup shows the merchant's name: kept a few seconds (ttl-cache.ts), as it changes only by an admin write.
  const merchantNameOf = (merchantId: string) =>
    deps.merchantNames.through(merchantId, () => app.payments.lookups.merchantName(merchantId));

  app.post(
    '/checkout/sessions',
    {
      preHandler: [app.requireScope('checkout_sessions:create'), app.idempotent],
      schema: {
        operationId: 'createCheckoutSession',
        tags: ['checkout'],
        summary: 'Create a hosted checkout session',
        description: 'Send an Idempotency-Key header to make retries safe. Redirect the customer to checkoutSession.checkoutUrl.',
        security: [{ apiKey: [] }],
        headers: z.object({ 'idempotency-key': z.string().max(255).optional() }),
        body: createCheckoutSessionBody,
        response: { 201: z.object({ ok: z.literal(true), checkoutSession: checkoutSessionSchema }) },
      },
    },
    async (request, reply) => {
      const session = await app.payments.openCheckoutSession(request.merchant!, request.body);
      return reply.status(201).send({ ok: true as const, checkoutSession: checkoutSessionView(session, deps.config.http.publicBaseUrl) });
    },
  );

  // Reading sessions is what transactions:read allows (the payment-session lookup's scope).
  app.get(
    '/checkout/sessions',
    {
      preHandler: app.requireScope('transactions:read'),
      schema: {
        operationId: 'listCheckoutSessions',
        tags: ['checkout'],
        summary: 'List your checkout sessions, newest first',
        description:
          'Your sessions from every source (this API, plugins, payment links), newest first, in pages: pass a page’s `nextCursor` as `cursor` for the next one ' +
          '(null on the last page). Paging through returns every session that matches once, whatever is created meanwhile (new sessions are ahead of the first page). ' +
          'Filters combine; `createdFrom` must be before `createdTo`. A refused filter or cursor is 422 `ValidationError`, with `details` naming the parameter.',
        security: [{ apiKey: [] }],
        querystring: listCheckoutSessionsQuery,
        response: {
          200: z.object({
            ok: z.literal(true),
            checkoutSessions: z.array(checkoutSessionSchema),
            hasMore: z.boolean().meta({ description: 'Whether another page follows (nextCursor is not null).', examples: [true] }),
            nextCursor: z
              .string()
              .nullable()
              .meta({
                description: 'Pass as `cursor` for the next page; null on the last page.',
                examples: ['WyIyMDI2LTAxLTE1VDEwOjMwOjAwLjAwMDAwMFoiLCJTVl80ZjlhMWMyYjdkOGU2ZjVhNGIzYzJkMWUiXQ'],
              }),
          }),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await app.payments.listCheckoutSessions(request.merchant!.id, {
        statuses: q.status === undefined ? undefined : [q.status].flat(),
        orderId: q.orderId,
        createdFrom: q.createdFrom ? new Date(q.createdFrom) : undefined,
        createdTo: q.createdTo ? new Date(q.createdTo) : undefined,
        cursor: q.cursor,
        limit: q.limit,
      });
      return {
        ok: true as const,
        checkoutSessions: page.items.map((session) => checkoutSessionView(session, deps.config.http.publicBaseUrl)),
        hasMore: page.nextCursor !== null,
        nextCursor: page.nextCursor,
      };
    },
  );

  // As Stripe's expire: the same scope as create. Repeating it answers the expired session again.
  app.post(
    '/checkout/sessions/:id/expire',
    {
      preHandler: [app.requireScope('checkout_sessions:create'), app.idempotent],
      schema: {
        operationId: 'expireCheckoutSession',
        tags: ['checkout'],
        summary: 'Expire a pending checkout session now',
        description:
          'The session becomes `expired` at once and `payment.expired` is sent, as when its expiresAt passes; its page can no longer be paid. ' +
          'Expiring an expired session answers it again (nothing is sent twice). A session that is processing, completed, failed or canceled answers 409 Conflict.',
        security: [{ apiKey: [] }],
        headers: z.object({ 'idempotency-key': z.string().max(255).optional() }),
        params: z.object({
          id: z.string().meta({ description: 'The checkout session id (SV_…).', example: 'SV_4f9a1c2b7d8e6f5a4b3c2d1e' }),
        }),
        response: { 200: z.object({ ok: z.literal(true), checkoutSession: checkoutSessionSchema }) },
      },
    },
    async (request) => {
      const session = await app.payments.expireCheckoutSession(request.merchant!.id, requireCanonicalId(request.params.id));
      return { ok: true as const, checkoutSession: checkoutSessionView(session, deps.config.http.publicBaseUrl) };
    },
  );

  // Public: the hosted page and status pages poll it. Customer-facing fields only.
  app.get(
    '/checkout/sessions/:id',
    {
      schema: {
        operationId: 'getPublicCheckoutSession',
        tags: ['checkout'],
        summary: 'Public status of a checkout session (no authentication)',
        description:
          'Customer-facing fields only: no merchant references, metadata or e-mail. The hosted page and status pages poll it (cache-control: no-store).',
        params: z.object({
          id: z.string().meta({ description: 'The checkout session id (SV_…).', example: 'SV_4f9a1c2b7d8e6f5a4b3c2d1e' }),
        }),
        response: { 200: publicSessionSchema.extend({ ok: z.literal(true) }) },
      },
    },
    async (request, reply) => {
      const id = requireCanonicalId(request.params.id);
      const session = await app.payments.lookups.publicSession(id);
      const merchantName = await merchantNameOf(session.merchantId);
      void reply.header('cache-control', 'no-store');
      // Added to the view, not spread into a copy (see payment-lookups.ts).
      return Object.assign(publicSessionView(session, merchantName ?? ''), { ok: true as const });
    },
  );

  // Public like the lookup above: the hosted page's "pay from your wallet" as JSON.
  app.post(
    '/checkout/sessions/:id/deposit',
    {
      schema: {
        operationId: 'openCheckoutDeposit',
        tags: ['checkout'],
        summary: 'Deposit instructions for paying a checkout session from a wallet (no authentication, idempotent)',
        description:
          'The hosted page’s “pay from your wallet” as JSON: the session’s deposit address, the token and network, the amount to send and a wallet URI ' +
          '(EIP-681, Solana Pay or TRON) for a QR code. Asking again answers the same address.',
        params: z.object({
          id: z.string().meta({ description: 'The checkout session id (SV_…).', example: 'SV_4f9a1c2b7d8e6f5a4b3c2d1e' }),
        }),
        response: {
          200: z.object({
            ok: z.literal(true),
            deposit: z.object({
              address: z.string(),
              asset: assetName,
              network: networkName,
              chainId: z.number().int(),
              amount: z.string(),
              uri: z.string(),
              expiresAt: z.string(),
            }),
          }),
        },
      },
    },
    async (request, reply) => {
      const deposit = await app.payments.openDirectDeposit(requireCanonicalId(request.params.id));
      void reply.header('cache-control', 'no-store');
      return { ok: true as const, deposit };
    },
  );
};

export default checkoutSessionRoutes;
