import type { ProviderEvent } from '../providers/types';
import type { ProviderFact } from '../workflows/checkout-session/messages';

/** How long a callback waits for Temporal to take its signal before answering 503 (the provider retries). */
export const SIGNAL_DEADLINE_MS = 5000;

const FACT_TYPE: Record<ProviderEvent['type'], ProviderFact['type']> = {
  'payment.processing': 'processing',
  'payment.succeeded': 'succeeded',
  'payment.failed': 'failed',
};

/** A verified provider callback, reduced to what a payment workflow's state machine needs. */
export function providerFact(event: ProviderEvent): ProviderFact {
  return {
    eventId: event.eventId,
    type: FACT_TYPE[event.type],
    providerPaymentId: event.providerPaymentId,
    destinationAmount: event.destinationAmount,
    transactionHash: event.transactionHash,
    explorerUrl: event.explorerUrl,
    failureReason: event.failureReason,
    occurredAt: event.occurredAt,
  };
}
