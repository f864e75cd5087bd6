import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CancelReason, PaymentStatus } from '../../domain/payment-status';
import type { DepositFact } from '../../domain/deposit-fact';
import type { ProviderFact } from '../../domain/provider-fact';

export type { DepositFact, ProviderFact };

// Signal, update and query definitions shared by the API (which sends them) and the workflow.

export const CHECKOUT_SESSION_WORKFLOW = 'checkoutSession';

export interface CheckoutSessionInput {
  paymentId: string;
  merchantId: string;
  provider: string;
  /** ISO timestamp; the session expires then unless it reached a terminal state. */
  expiresAt: string;
  /** `chain`: only a confirmed credit of the deposit address completes it. */
  verification: 'chain' | 'provider';
  /** Chain-verified runs: how long a provider's success may wait for its transfer before it is `unverified`. */
  providerProofTimeoutMs: number;
}

export interface PaymentStart {
  providerPaymentId: string;
  redirectUrl: string;
}

export interface CheckoutSessionState {
  status: PaymentStatus;
  providerPaymentId: string | null;
  lateEvents: number;
}

export const providerUpdateSignal = defineSignal<[ProviderFact]>('providerUpdate');
/** Why a cancel is asked for (none: the customer's). */
export interface CancelRequest {
  reason: CancelReason;
}
/**
 * The hosted page's Cancel button, and a paid link ending its other open sessions (reason
 * `link_paid`); answers the status the session ended in.
 */
export const cancelUpdate = defineUpdate<PaymentStatus, [CancelRequest]>('cancel');
/** The merchant's expire (POST …/expire, as Stripe's); answers the status the session ended in. */
export const expireUpdate = defineUpdate<PaymentStatus>('expire');
/** A chain watcher's word about the session's deposit address (chain-verified runs only). */
export const depositSignal = defineSignal<[DepositFact]>('deposit');
export const stateQuery = defineQuery<CheckoutSessionState>('state');
/**
 * An operator's retry of a failed payout (POST /admin/v1/payouts/{id}/retry), sent to
 * the run that owns the payment's settlement (the session's, the simple order's, or the exception's
 * that accepted it). Only a run waiting after a failed payout has a handler; any other refuses it.
 */
export const retryPayoutUpdate = defineUpdate<void>('retryPayout');
