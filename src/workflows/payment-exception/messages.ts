import { defineQuery, defineUpdate } from '@temporalio/workflow';

// Definitions shared by the exception workflow, the payment workflows that start it, and the
// operators' routes that send it updates.

export const PAYMENT_EXCEPTION_WORKFLOW = 'paymentException';

export interface PaymentExceptionInput {
  /** Also the workflow id: one run per exception. */
  exceptionId: string;
  paymentId: string;
}

import type { ExceptionOutcome } from '../../domain/payment-exception';

export type { ExceptionOutcome };

export interface AcceptResult {
  exceptionId: string;
  paymentId: string;
  /** The payment's status after the acceptance. */
  paymentStatus: string;
}

/** An operator accepts a late or underpaid payment as the payment. */
export const acceptUpdate = defineUpdate<AcceptResult>('accept');
/** The refund an operator asked for: planned (payout rows written), sent by the exception's run. */
export interface RefundResult {
  exceptionId: string;
  paymentId: string;
  /** Where the money goes: the first request's address (a repeated request answers the same plan). */
  address: string;
  amountMicro: string;
}

/** An operator sends the money back on chain to `address`. */
export const refundUpdate = defineUpdate<RefundResult, [{ address: string }]>('refund');
export const exceptionStateQuery = defineQuery<ExceptionOutcome>('exceptionState');
