import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PaymentStatus } from '../../domain/payment-status';
import type { ProviderFact } from '../../domain/provider-fact';

export type { ProviderFact };

// Signal, update and query definitions shared by the API (which sends them) and the workflow.

export const CHECKOUT_SESSION_WORKFLOW = 'checkoutSession';

export interface CheckoutSessionInput {
  paymentId: string;
  merchantId: string;
  provider: string;
  /** ISO timestamp; the session expires then unless it reached a terminal state. */
  expiresAt: string;
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
/** The hosted page's Pay of the previous version (Pay now goes from the API to the provider); kept for its runs. */
export const startPaymentUpdate = defineUpdate<PaymentStart>('startPayment');
/** The hosted page's Cancel button; answers the status the session ended in. */
export const cancelUpdate = defineUpdate<PaymentStatus>('cancel');
export const stateQuery = defineQuery<CheckoutSessionState>('state');
