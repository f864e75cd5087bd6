import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ASSETS, NETWORKS } from '../../domain/assets';
import { formatCrypto, formatFiatText } from '../../domain/money';
import { merchantPaymentLabels, partPayment } from '../../domain/payment-labels';
import { paymentListFilter, PAYMENT_LIST_MAX_LIMIT } from '../../domain/payment-list';
import type { PaymentService } from '../../payments';
import type { MerchantPaymentRow } from '../../payments/rows';
import { rolesFor } from '../../domain/dashboard-roles';
import { hide, type SignedIn } from './guard';
import { ok } from './views/ok';
import { PAYMENT_ROW_STATUSES, partlyPaidView, paymentRowView } from './views/payments';

// The merchant's payments (every source: API, plugins, links), filtered, searched,
// paged by cursor, and the same filtered rows as CSV. Every role reads them.

const RAILS = ['fiat_to_crypto', 'crypto_transfer'] as const;

export function viewPartlyPaid(s: Parameters<typeof partPayment>[0], arrivedMicro: bigint): z.infer<typeof partlyPaidView> {
  const part = partPayment(s, arrivedMicro);
  return part
    ? {
        arrived: formatCrypto(part.arrivedMicro),
        expected: formatCrypto(part.expectedMicro),
        remaining: formatCrypto(part.expectedMicro - part.arrivedMicro),
      }
    : null;
}

const instant = z.string().datetime({ offset: true }).or(z.string().date());

export const paymentListQuery = z.strictObject({
  status: z
    .string()
    .max(200)
    .refine((v) => v.split(',').every((s) => s === '' || (PAYMENT_ROW_STATUSES as readonly string[]).includes(s)), {
      message: `Comma-separated statuses among ${PAYMENT_ROW_STATUSES.join(', ')}.`,
    })
    .optional(),
  from: instant.optional(),
  to: instant.optional(),
  currency: z.string().max(3).optional(),
  minAmount: z.string().max(30).optional(),
  maxAmount: z.string().max(30).optional(),
  asset: z.enum(ASSETS).optional(),
  network: z.enum(NETWORKS).optional(),
  rail: z.enum(RAILS).optional(),
  openExceptions: z.enum(['true', 'false']).optional(),
  link: z.string().max(100).optional(),
  q: z.string().max(200).optional(),
});

const listQuery = paymentListQuery.extend({
  cursor: z.string().max(300).optional(),
  limit: z.coerce.number().int().min(1).max(PAYMENT_LIST_MAX_LIMIT).optional(),
});

export const viewPaymentRow = (r: MerchantPaymentRow): z.infer<typeof paymentRowView> => ({
  id: r.id,
  status: r.status,
  source: r.source,
  amount: formatFiatText(r.amountMinor, r.currency),
  currency: r.currency,
  asset: r.destinationAsset,
  network: r.network,
  railType: r.railType,
  ...merchantPaymentLabels(r, r.arrivedMicro),
  partlyPaid: viewPartlyPaid(r, r.arrivedMicro),
  orderId: r.orderId ?? r.merchantOrderId,
  customerEmail: r.customerEmail,
  paymentLinkId: r.paymentLinkId,
  createdAt: r.createdAt.toISOString(),
  completedAt: r.completedAt?.toISOString() ?? null,
  openExceptions: r.openExceptions,
});

const filterOf = (q: z.infer<typeof paymentListQuery>) => paymentListFilter({ ...q, openExceptions: q.openExceptions === 'true' });

const paymentListRoutes: FastifyPluginAsyncZod<{ payments: PaymentService; signedIn: SignedIn }> = async (app, { payments, signedIn }) => {
  app.get(
    '/payments',
    {
      schema: {
        hide,
        querystring: listQuery,
        response: { 200: z.object({ ok, payments: z.array(paymentRowView), nextCursor: z.string().nullable() }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('payments.read'));
      const { cursor, limit, ...query } = request.query;
      const page = await payments.merchantPayments.list(s.merchantId, filterOf(query), {
        ...(cursor ? { cursor } : {}),
        ...(limit ? { limit } : {}),
      });
      return { ok: true as const, payments: page.items.map(viewPaymentRow), nextCursor: page.nextCursor };
    },
  );

  app.get('/payments.csv', { schema: { hide, querystring: paymentListQuery } }, async (request, reply) => {
    const s = await signedIn(request, rolesFor('payments.read'));
    const filter = filterOf(request.query);
    // The first chunk is read before the status is sent, so a refused filter is still an error in the envelope.
    const lines = payments.merchantPayments.exportCsv(s.merchantId, filter);
    const first = await lines.next();
    async function* all() {
      if (!first.done) yield first.value;
      yield* lines;
    }
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="payments-${s.merchantId}.csv"`)
      .send(Readable.from(all()));
  });
};

export default paymentListRoutes;
