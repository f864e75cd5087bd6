import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { SimpleOrderStatus } from '../../domain/payment-status';
import type { ProviderFact } from '../../domain/provider-fact';

// Signal, update and query definitions of the simple API's order workflow.

export const SIMPLE_ORDER_WORKFLOW = 'simpleOrder';

export type { SimpleOrderStatus };

export interface SimpleOrderInput {
  transactionCode: string;
  /** ISO timestamp; a still-pending order expires then. */
  expiresAt: string;
  /** Whether a transaction.settled webhook is to be sent. */
  hasWebhook: boolean;
  /** How long a `processing` order waits for the provider's outcome before it fails (default PROCESSING_TIMEOUT_MS). */
  processingTimeoutMs?: number;
  /** `chain`: only confirmed credits of its deposit address settle it. */
  verification: 'chain' | 'provider';
  /** Chain-verified runs: how long a provider's success may wait for its transfer before it is `unverified`. */
  providerProofTimeoutMs: number;
}

export interface SimpleOrderState {
  status: SimpleOrderStatus;
}

export type { ProviderFact };
export type { DepositFact } from '../../domain/deposit-fact';
/** The chain watcher's word about the order's deposit address: the same signal a checkout session gets. */
export { depositSignal } from '../checkout-session/messages';

export const simpleProviderSignal = defineSignal<[ProviderFact]>('simpleProviderUpdate');
export const simpleStateQuery = defineQuery<SimpleOrderState>('state');
