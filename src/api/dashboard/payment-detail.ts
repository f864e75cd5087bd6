import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { explorerUrlFor } from '../../domain/explorers';
import { formatCrypto, formatFiatText } from '../../domain/money';
import type { PaymentService } from '../../payments';
import type { ExceptionDetail, PaymentDetail } from '../../payments/payment-detail';
import { viewRefund } from '../../payments/payment-refunds';
import { viewDelivery } from '../routes/admin/merchant-views';
import { rolesFor } from '../../domain/dashboard-roles';
import { refundInput } from '../../domain/dashboard-inputs';
import { merchantPaymentLabels } from '../../domain/payment-labels';
import { actorOf, hide, type SignedIn } from './guard';
import { viewPartlyPaid } from './payments';
import { refundView as paymentRefundView } from '../routes/admin/payment-views';
import { ok } from './views/ok';
import { exceptionRefundView, exceptionView, paymentDetailView, paymentProofView, type paymentView } from './views/payment-detail';

// One payment's page (every role reads it) and the refund of its exceptions
// (owners and admins, after a step-up: it moves money). Webhook resends go through the developers
// area's route, whose roles they share.

/** Who may send money back: not developers (they build the integration) nor viewers. */

const params = z.object({ id: z.string().max(100) });
const iso = (d: Date | null) => (d ? d.toISOString() : null);

const viewException = ({ exception: x, refund, refundable }: ExceptionDetail): z.infer<typeof exceptionView> => ({
  id: x.id,
  kind: x.kind,
  amount: formatCrypto(x.amountMicro),
  asset: x.asset,
  status: x.status,
  createdAt: x.createdAt.toISOString(),
  resolvedAt: iso(x.resolvedAt),
  refundable,
  refund,
});

const money = (micro: bigint | null) => (micro === null ? null : formatCrypto(micro));

function viewPayment({ session: s, transaction: t, arrivedMicro }: PaymentDetail): z.infer<typeof paymentView> {
  return {
    id: s.id,
    status: s.status,
    amount: formatFiatText(s.amountMinor, s.currency),
    currency: s.currency,
    asset: s.destinationAsset,
    network: s.network,
    railType: s.railType,
    // The same labels as the list and its CSV: a wallet payment never names the provider.
    ...merchantPaymentLabels(s, arrivedMicro),
    partlyPaid: viewPartlyPaid(s, arrivedMicro),
    source: s.source,
    verification: s.verification,
    orderId: s.orderId ?? s.merchantOrderId,
    customerEmail: s.customerEmail,
    paymentLinkId: s.paymentLinkId,
    metadata: (s.metadata ?? {}) as Record<string, unknown>,
    depositAddress: s.depositAddress,
    expectedGross: money(s.expectedGrossMicro),
    refundAddress: s.refundAddress,
    cancelReason: s.cancelReason,
    createdAt: s.createdAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    completedAt: iso(s.completedAt),
    settlement: t
      ? {
          gross: money(t.grossMicro),
          merchantSettlement: money(t.merchantSettlementMicro),
          platformCommission: money(t.platformCommissionMicro),
          transactionHash: t.transactionHash,
          explorerUrl: t.explorerUrl,
          depositTransactionHash: t.depositTransactionHash,
        }
      : null,
  };
}

export interface PaymentDetailRoutesOptions {
  payments: PaymentService;
  signedIn: SignedIn;
}

const paymentDetailRoutes: FastifyPluginAsyncZod<PaymentDetailRoutesOptions> = async (app, { payments, signedIn }) => {
  app.get(
    '/payments/:id',
    {
      schema: {
        hide,
        params,
        response: {
          200: paymentDetailView,
        },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('payments.read'));
      const detail = await payments.paymentDetail.detail(s.merchantId, request.params.id);
      return {
        ok: true as const,
        payment: viewPayment(detail),
        timeline: detail.timeline,
        exceptions: detail.exceptions.map(viewException),
        deliveries: detail.deliveries.map(viewDelivery),
        refunds: detail.refunds,
      };
    },
  );

  app.get(
    '/payments/:id/proof',
    { schema: { hide, params, response: { 200: z.object({ ok, proof: paymentProofView }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('payments.read'));
      const p = await payments.paymentDetail.proof(s.merchantId, request.params.id);
      return {
        ok: true as const,
        proof: {
          depositAddress: p.depositAddress,
          verification: p.verification,
          network: p.network,
          asset: p.asset,
          expectedGross: p.expectedGross,
          credited: p.credited,
          chain: p.chain,
          chainError: p.chainError,
          credits: p.credits.map((c) => ({ ...c, explorerUrl: explorerUrlFor(p.network, c.transactionHash) })),
        },
      };
    },
  );

  // The completed payment itself refunded, wholly or partly, from the treasury: the
  // operators' use case (refundPayment), scoped to the merchant, by owners and admins after a step-up.
  app.post(
    '/payments/:id/refunds',
    {
      schema: {
        hide,
        params,
        body: refundInput,
        response: { 201: z.object({ ok, refund: paymentRefundView }) },
      },
    },
    async (request, reply) => {
      const s = await signedIn(request, rolesFor('refunds.create'), { stepUp: true });
      const refund = await payments.paymentDetail.refundPayment(actorOf(request, s), request.params.id, {
        amount: request.body.amount,
        address: request.body.address,
        requestKey: request.body.requestKey,
      });
      return reply.code(201).send({ ok: true as const, refund: viewRefund(refund) });
    },
  );

  app.post(
    '/payments/:id/exceptions/:exceptionId/refund',
    {
      schema: {
        hide,
        params: params.extend({ exceptionId: z.string().max(100) }),
        // No address: the one the customer left on the checkout page.
        body: z.strictObject({ address: z.string().trim().min(1).max(100).optional() }),
        response: { 200: z.object({ ok, exception: exceptionView, refund: exceptionRefundView }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('refunds.create'), { stepUp: true });
      const { exception, refund } = await payments.paymentDetail.refundException(
        actorOf(request, s),
        request.params.id,
        request.params.exceptionId,
        request.body.address,
      );
      return {
        ok: true as const,
        exception: viewException({ exception, refund, refundable: false }),
        refund,
      };
    },
  );
};

export default paymentDetailRoutes;
