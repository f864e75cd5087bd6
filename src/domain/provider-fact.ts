// What a payment's state machine learns from a provider, whoever owns the payment (a checkout
// session or a simple order) and whichever provider said it. Adapters turn their callbacks into
// ProviderEvents; the engine reduces a verified event to this fact before any workflow sees it.

export type ProviderEventType = 'payment.processing' | 'payment.succeeded' | 'payment.failed';

/** A verified provider callback, normalised by its adapter. */
export interface ProviderEvent {
  provider: string;
  /** The provider's event id: callbacks are deduplicated by it. */
  eventId: string;
  type: ProviderEventType;
  providerPaymentId: string;
  /** Our reference given when the provider payment was created: a payment id or transaction code. */
  reference: string;
  sourceAmount: string;
  sourceCurrency: string;
  destinationAsset: string;
  network: string;
  walletAddress: string;
  /** Delivered gross stablecoin amount (succeeded only). */
  destinationAmount?: string | undefined;
  transactionHash?: string | undefined;
  explorerUrl?: string | undefined;
  failureReason?: string | undefined;
  occurredAt: string;
}

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

const FACT_TYPE: Record<ProviderEventType, ProviderFact['type']> = {
  'payment.processing': 'processing',
  'payment.succeeded': 'succeeded',
  'payment.failed': 'failed',
};

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

/** What the provider says it is paying, to compare with what the payment expects (amounts as decimal text). */
export interface ExpectedTerms {
  sourceAmount: string;
  sourceCurrency: string;
  destinationAsset: string;
  network: string;
  walletAddress: string;
}

/** Why a verified event does not belong to the payment it names, or null when it does. */
export function termsMismatch(event: ProviderEvent, expected: ExpectedTerms): string | null {
  if (event.sourceCurrency !== expected.sourceCurrency) return `currency ${event.sourceCurrency} ≠ ${expected.sourceCurrency}`;
  if (event.sourceAmount !== expected.sourceAmount) return `amount ${event.sourceAmount} ≠ ${expected.sourceAmount}`;
  if (event.destinationAsset !== expected.destinationAsset || event.network !== expected.network) {
    return `destination ${event.destinationAsset}/${event.network} ≠ ${expected.destinationAsset}/${expected.network}`;
  }
  if (event.walletAddress !== expected.walletAddress) return 'wallet address differs';
  // A success is a claim that money moved: zero is no money, and a negative amount is nonsense.
  if (
    event.type === 'payment.succeeded' &&
    (!event.destinationAmount || !/^(?=.*[1-9])\d+\.\d{6}$/.test(event.destinationAmount) || !event.transactionHash)
  ) {
    return 'a success needs a positive 6-decimal destination amount and a transaction hash';
  }
  return null;
}
