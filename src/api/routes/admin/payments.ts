import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CheckoutSessionRow, TransactionRow } from '../../../payments/rows';
import { payoutView, viewPayout } from '../../payouts/views';
import { isFiatCurrency } from '../../../domain/currencies';
import { formatCrypto, formatFiat } from '../../../domain/money';
import { isTerminal, PAYMENT_STATUSES } from '../../../domain/payment-status';
import { requireCanonicalId } from '../lookup-id';
import { viewRefund } from '../../../payments/payment-refunds';
import { refundView } from './payment-views';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const crypto = (micro: bigint | null) => (micro === null ? null : formatCrypto(micro));

// Exported for the ops CLI's compile-time check of what it reads (src/cli/render.ts).
export const paymentView = z.object({
  id: z.string(),
  merchantId: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  /** No further status change can happen: what `ops payments wait` polls for. */
  terminal: z.boolean(),
  amount: z.string(),
  currency: z.string(),
  source: z.string(),
  reviewFlag: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  completedAt: z.string().nullable(),
});
export const transactionSummary = z.object({
  status: z.enum(['completed', 'failed']),
  grossAmount: z.string().nullable(),
  merchantSettlementAmount: z.string().nullable(),
  platformCommissionAmount: z.string().nullable(),
  asset: z.string(),
  network: z.string(),
  transactionHash: z.string().nullable(),
  depositTransactionHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  completedAt: z.string().nullable(),
});
function viewPayment(s: CheckoutSessionRow): z.infer<typeof paymentView> {
  return {
    id: s.id,
    merchantId: s.merchantId,
    status: s.status,
    terminal: isTerminal(s.status),
    // A currency the domain does not know would be a corrupt row; show the minor units rather than fail.
    amount: isFiatCurrency(s.currency) ? formatFiat(s.amountMinor, s.currency) : `${s.amountMinor} minor units`,
    currency: s.currency,
    source: s.source,
    reviewFlag: s.reviewFlag,
    createdAt: s.createdAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    completedAt: iso(s.completedAt),
  };
}

function viewTransaction(t: TransactionRow): z.infer<typeof transactionSummary> {
  return {
    status: t.status,
    grossAmount: crypto(t.grossMicro),
    merchantSettlementAmount: crypto(t.merchantSettlementMicro),
    platformCommissionAmount: crypto(t.platformCommissionMicro),
    asset: t.destinationAsset,
    network: t.network,
    transactionHash: t.transactionHash,
    depositTransactionHash: t.depositTransactionHash,
    failureReason: t.failureReason,
    completedAt: iso(t.completedAt),
  };
}

/** Operators: one payment's status and transaction summary, whichever merchant it belongs to. */
const adminPaymentRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/payments/:id',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary:
          'A payment’s status, its transaction summary and its payouts (the settlement, then refunds of its exceptions), read from Postgres',
        description: 'What `ops payments wait` polls; any merchant’s payment (this is the operator’s view).',
        params: z.object({ id: z.string() }),
        response: {
          200: z.object({
            ok: z.literal(true),
            payment: paymentView,
            transaction: transactionSummary.nullable(),
            payouts: z.array(payoutView),
          }),
        },
      },
    },
    async (request) => {
      const { session, transaction: tx, payouts } = await app.payments.admin.payment(requireCanonicalId(request.params.id));
      return {
        ok: true as const,
        payment: viewPayment(session),
        transaction: tx ? viewTransaction(tx) : null,
        payouts: payouts.map(viewPayout),
      };
    },
  );

  app.post(
    '/payments/:id/refunds',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary:
          'Refund a completed payment, wholly or partly: `amount` of its stablecoin sent from the treasury to `address`, once. The amount must be more than 0 and at most what is left to refund (422 otherwise); it is drawn at once from the merchant’s balance in that asset and network (available, then reserved), and more than that balance holds is 409 InsufficientBalance. Answers once the refund’s run has recorded it; payment.refunded fires when the transfer is confirmed',
        description:
          'A refused address (zero, malformed or mistyped, the treasury, a token contract, a deposit address of ours) is 422 and changes nothing. Each call is a new refund unless it repeats a requestKey; a failed transfer is retried with POST /admin/v1/payouts/{id}/retry.',
        params: z.object({ id: z.string() }),
        body: z.strictObject({
          amount: z
            .string()
            .trim()
            .min(1)
            .max(40)
            .describe('The stablecoin amount to send back, a decimal with at most 6 decimals (e.g. "12.5")'),
          address: z
            .string()
            .trim()
            .min(1)
            .max(128)
            .optional()
            .describe(
              'The customer’s EVM address (EIP-55 when mixed case). Absent: the refund address the customer gave on the checkout page; 422 when there is none',
            ),
          requestKey: z
            .string()
            .trim()
            .min(8)
            .max(100)
            .optional()
            .describe(
              'Your key for this refund: asked again with the same key, the answer is the refund it made (409 if the amount or address differ)',
            ),
        }),
        response: { 201: z.object({ ok: z.literal(true), refund: refundView }) },
      },
    },
    async (request, reply) => {
      const refund = await app.payments.refundPayment({
        paymentId: requireCanonicalId(request.params.id),
        amount: request.body.amount,
        address: request.body.address,
        requestKey: request.body.requestKey,
        requestedBy: 'admin',
      });
      return reply.code(201).send({ ok: true as const, refund: viewRefund(refund) });
    },
  );
};

export default adminPaymentRoutes;
