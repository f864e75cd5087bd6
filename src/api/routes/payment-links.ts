import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { z } from 'zod';
import { listWallets } from '../../db/queries/merchants';
import { deletePaymentLink, insertPaymentLink, type PaymentLinkRow } from '../../db/queries/payment-links';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import { DEFAULT_ASSET, DEFAULT_NETWORK, isSupportedPair } from '../../domain/assets';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError, validationError, type ErrorDetail } from '../../domain/errors';
import { newPaymentLinkId } from '../../domain/ids';
import { formatFiat } from '../../domain/money';
import { PAYMENT_LINK_WORKFLOW, type PaymentLinkInput } from '../../workflows/payment-link/messages';
import type { paymentLink } from '../../workflows/payment-link/workflow';
import { MerchantIdKey, OrderIdKey } from '../../workflows/search-attributes';
import { parseAmount, type OpenSessionDeps } from '../checkout/open-session';
import { isUnavailable } from '../plugins/errors';
import { createCheckoutSessionBody } from './checkout-sessions';

const TEMPORAL_START_DEADLINE_MS = 5000;
const v1 = createCheckoutSessionBody.shape;

// Decisions §5: required amount and currency; expiresInMinutes 5..43,200, default 7 days.
const createPaymentLinkBody = z.strictObject({
  amount: v1.amount,
  currency: v1.currency,
  destinationAsset: v1.destinationAsset,
  network: v1.network,
  description: z.string().min(1).max(500).optional(),
  merchantOrderId: v1.merchantOrderId,
  expiresInMinutes: z.number().int().min(5).max(43_200).default(10_080),
});

export const paymentLinkSchema = z.object({
  id: z.string(),
  url: z.string(),
  status: z.enum(['active', 'paid', 'expired']),
  amount: z.string(),
  currency: z.string(),
  destinationAsset: z.string(),
  network: z.string(),
  description: z.string().nullable(),
  merchantOrderId: z.string().nullable(),
  expiresAt: z.string(),
  createdAt: z.string(),
});

export const paymentLinkUrlFor = (publicBaseUrl: string, id: string) => `${publicBaseUrl}/link/${id}`;

export function paymentLinkView(link: PaymentLinkRow, publicBaseUrl: string): z.infer<typeof paymentLinkSchema> {
  if (!isFiatCurrency(link.currency)) throw new Error(`unknown currency ${link.currency}`);
  return {
    id: link.id,
    url: paymentLinkUrlFor(publicBaseUrl, link.id),
    status: link.status,
    amount: formatFiat(link.amountMinor, link.currency),
    currency: link.currency,
    destinationAsset: link.destinationAsset,
    network: link.network,
    description: link.description,
    merchantOrderId: link.merchantOrderId,
    expiresAt: link.expiresAt.toISOString(),
    createdAt: link.createdAt.toISOString(),
  };
}

/** Shareable payment links (spec §4.4): a row, and the workflow that expires it. */
const paymentLinkRoutes: FastifyPluginAsyncZod<OpenSessionDeps> = async (app, { config, db, temporal, now }) => {
  app.post(
    '/payment-links',
    {
      preHandler: [app.requireScope('payment_links:create'), (request, reply) => app.idempotent(request, reply)],
      schema: {
        tags: ['payment links'],
        summary: 'Create a shareable payment link',
        description: 'The link can be paid once, until it expires. Send an Idempotency-Key header to make retries safe.',
        security: [{ apiKey: [] }],
        headers: z.object({ 'idempotency-key': z.string().max(255).optional() }),
        body: createPaymentLinkBody,
        response: { 201: z.object({ ok: z.literal(true), paymentLink: paymentLinkSchema, checkoutUrl: z.string() }) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const merchant = request.merchant!;
      const details: ErrorDetail[] = [];

      // The same rules a checkout session of the link will meet, so a link that is created can be paid.
      const currency = body.currency.toUpperCase();
      let amountMinor: bigint | null = null;
      if (!isFiatCurrency(currency)) details.push({ path: 'currency', message: `Unsupported currency ${body.currency}.` });
      else amountMinor = parseAmount(body.amount, currency, config.checkout, details);
      const asset = (body.destinationAsset ?? DEFAULT_ASSET).toUpperCase();
      const network = (body.network ?? DEFAULT_NETWORK).toLowerCase();
      if (!isSupportedPair(asset, network)) {
        details.push({ path: 'network', message: `${asset} on ${network} is not supported.` });
      } else if (!(await listWallets(db, merchant.id)).some((w) => w.asset === asset && w.network === network)) {
        details.push({ path: 'network', message: `No settlement wallet is set for ${asset} on ${network}.` });
      }
      if (details.length > 0) throw validationError(details, 'The payment link is not valid.');
      if (!(await getPaymentsSetting(db)).enabled) {
        throw new AppError('PaymentsDisabled', 'New payments are disabled on this platform for now.');
      }

      const id = newPaymentLinkId();
      const expiresAt = new Date(now().getTime() + body.expiresInMinutes * 60_000);
      const link = await insertPaymentLink(db, {
        id,
        merchantId: merchant.id,
        amountMinor: amountMinor!,
        currency,
        destinationAsset: asset,
        network,
        description: body.description ?? null,
        merchantOrderId: body.merchantOrderId ?? null,
        expiresAt,
      });
      const input: PaymentLinkInput = { linkId: id, expiresAt: expiresAt.toISOString() };
      try {
        await temporal.connection.withDeadline(Date.now() + TEMPORAL_START_DEADLINE_MS, () =>
          temporal.workflow.start<typeof paymentLink>(PAYMENT_LINK_WORKFLOW, {
            workflowId: id,
            taskQueue: config.temporal.taskQueue,
            args: [input],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
            typedSearchAttributes: [
              { key: MerchantIdKey, value: merchant.id },
              ...(link.merchantOrderId ? [{ key: OrderIdKey, value: link.merchantOrderId }] : []),
            ],
          }),
        );
      } catch (err) {
        // Nothing may remain that no workflow would ever expire.
        await deletePaymentLink(db, id);
        if (isUnavailable(err)) {
          throw new AppError('Unavailable', 'The payment engine is unavailable; nothing was created. Retry with the same Idempotency-Key.');
        }
        throw err;
      }
      const view = paymentLinkView(link, config.http.publicBaseUrl);
      return reply.status(201).send({ ok: true as const, paymentLink: view, checkoutUrl: view.url });
    },
  );
};

export default paymentLinkRoutes;
