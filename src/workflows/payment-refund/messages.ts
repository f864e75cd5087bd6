// Definitions shared by the completed-payment refund workflow and the use case that starts it
// (docs/settlement.md). An operator's retry of its failed transfer is the payouts' retryPayout update
// (checkout-session/messages.ts), as for any failed payout.

export const PAYMENT_REFUND_WORKFLOW = 'paymentRefund';

export interface PaymentRefundInput {
  /** Also the workflow id: one run per refund. */
  refundId: string;
  paymentId: string;
}

export type PaymentRefundOutcome = 'refunded' | 'failed';
