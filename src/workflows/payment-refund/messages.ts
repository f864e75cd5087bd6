import { defineUpdate } from '@temporalio/workflow';

// Definitions shared by the completed-payment refund workflow and the use case that starts it
// (docs/settlement.md). An operator's retry of its failed transfer is the payouts' retryPayout update
// (checkout-session/messages.ts), as for any failed payout.

export const PAYMENT_REFUND_WORKFLOW = 'paymentRefund';

export interface PaymentRefundInput {
  /** Also the workflow id: one run per refund. */
  refundId: string;
  paymentId: string;
  /**
   * How long the run waits for its request (the update it is started with) before it looks for
   * its row itself: a request admitted with the start but lost before the workflow accepted it.
   * One minute unless given.
   */
  requestWaitMs?: number;
}

/** The dashboard user who asked, for the audit line written with the refund. */
export interface RefundAuditActor {
  userId: string;
  email: string;
  merchantId: string;
  ip: string;
}

/** What the refund's run records as its first step: the refund as the use case checked it. */
export interface RefundRequest {
  paymentId: string;
  /** Micro units of the payment's stablecoin, as a decimal string (a bigint does not cross). */
  amountMicro: string;
  /** Checked and checksummed by the use case. */
  address: string;
  requestedBy: string;
  requestKey: string | null;
  audit: RefundAuditActor | null;
  /**
   * Epoch ms after which the asker has been answered that the engine did not answer in time: a
   * request recorded after that would surprise them, so it is refused instead.
   */
  notAfter: number;
}

/** Where a refund's row stands once its run has recorded it (or found it recorded). */
export type RefundStanding = 'requested' | 'refunded' | 'failed';

export interface RecordedRefund {
  standing: RefundStanding;
  /** The row was there already (the same request again): nothing was written. */
  repeated: boolean;
}

/**
 * The request that starts a refund's run (update-with-start): recorded in one transaction under the
 * payment's and the merchant's locks, or refused with a typed failure the API answers with.
 */
export const requestRefundUpdate = defineUpdate<RecordedRefund, [RefundRequest]>('requestRefund');

export type PaymentRefundOutcome = 'refunded' | 'failed' | 'refused';
