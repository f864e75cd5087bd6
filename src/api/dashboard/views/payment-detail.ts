import { z } from 'zod';
import { proofCreditView, proofView as adminProofView, refundView as paymentRefundView } from '../../routes/admin/payment-views';
import { deliveryView } from '../../routes/admin/merchant-views';
import { ok } from './ok';
import { paidWithView, partlyPaidView } from './payments';

// One payment's page as the dashboard reads it (routes in ../payment-detail.ts): the payment, its
// timeline, exceptions and their refunds, webhook deliveries, refunds of the payment itself, and its
// proof on chain.

/** The refund of an exception: money that arrived off the happy path, sent back. */
export const exceptionRefundView = z.object({
  address: z.string(),
  amount: z.string(),
  status: z.enum(['planned', 'signed', 'broadcast', 'confirmed', 'failed']),
  failureReason: z.string().nullable(),
  transactionHash: z.string().nullable(),
  explorerUrl: z.string().nullable(),
});

export const exceptionView = z.object({
  id: z.string(),
  kind: z.string(),
  amount: z.string(),
  asset: z.string().nullable(),
  status: z.enum(['open', 'accepted', 'refunded']),
  createdAt: z.string(),
  resolvedAt: z.string().nullable(),
  refundable: z.boolean(),
  refund: exceptionRefundView.nullable(),
});

export const timelineView = z.object({
  at: z.string(),
  kind: z.string(),
  title: z.string(),
  detail: z.string().nullable(),
  transactionHash: z.string().nullable(),
  explorerUrl: z.string().nullable(),
  confirmations: z.string().nullable(),
  ref: z.string().nullable(),
});

export const paymentView = z.object({
  id: z.string(),
  status: z.string(),
  amount: z.string(),
  currency: z.string(),
  asset: z.string(),
  network: z.string(),
  railType: z.string(),
  paidWith: paidWithView,
  provider: z.string().nullable(),
  partlyPaid: partlyPaidView,
  source: z.string(),
  verification: z.string(),
  orderId: z.string().nullable(),
  customerEmail: z.string().nullable(),
  paymentLinkId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  depositAddress: z.string().nullable(),
  expectedGross: z.string().nullable(),
  /** Where the customer asked money off the happy path to go back (the refund form's default). */
  refundAddress: z.string().nullable(),
  cancelReason: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  completedAt: z.string().nullable(),
  settlement: z
    .object({
      gross: z.string().nullable(),
      merchantSettlement: z.string().nullable(),
      platformCommission: z.string().nullable(),
      transactionHash: z.string().nullable(),
      explorerUrl: z.string().nullable(),
      depositTransactionHash: z.string().nullable(),
    })
    .nullable(),
});

export const paymentDetailView = z.object({
  ok,
  payment: paymentView,
  timeline: z.array(timelineView),
  exceptions: z.array(exceptionView),
  deliveries: z.array(deliveryView),
  // Refunds of the completed payment itself; the form's default is refundableAmount.
  refunds: z.object({ refundable: z.boolean(), refundableAmount: z.string(), refunds: z.array(paymentRefundView) }),
});

/** The operators' proof without the ids the page already shows, each credit with its explorer link. */
export const paymentProofView = adminProofView
  .omit({ paymentId: true, kind: true, status: true })
  .extend({ credits: z.array(proofCreditView.extend({ explorerUrl: z.string().nullable() })) });
