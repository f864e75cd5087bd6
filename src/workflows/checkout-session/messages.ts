import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PaymentStatus } from '../../domain/payment-status';

// Signal, update and query definitions shared by the API (which sends them) and the workflow.

export const CHECKOUT_SESSION_WORKFLOW = 'checkoutSession';

export interface CheckoutSessionInput {
  paymentId: string;
  merchantId: string;
  provider: string;
  /** ISO timestamp; the session expires then unless it reached a terminal state. */
  expiresAt: string;
}

/** A verified provider callback, reduced to what the state machine needs. */
export interface ProviderFact {
  eventId: string;
  type: 'processing' | 'succeeded' | 'failed';
  providerPaymentId: string;
  destinationAmount?: string | undefined;
  transactionHash?: string | undefined;
  explorerUrl?: string | undefined;
  failureReason?: string | undefined;
  occurredAt: string;
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
/** The hosted page's Pay button: creates (once) the provider payment and returns where to send the customer. */
export const startPaymentUpdate = defineUpdate<PaymentStart>('startPayment');
/** The hosted page's Cancel button; answers the status the session ended in. */
export const cancelUpdate = defineUpdate<PaymentStatus>('cancel');
export const stateQuery = defineQuery<CheckoutSessionState>('state');
