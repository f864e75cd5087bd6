import type { Asset, Network } from '../src/domain/assets';
import type { FiatCurrency } from '../src/domain/currencies';
import type { SandboxQuote } from './rates';

// The sandbox keeps everything in memory: it is a simulator, and a restart forgets its payments,
// events and transactions (a payment begun before a restart must be started again from our page).

// `canceled`: the merchant platform closed the payment (its session ended); it can no longer be paid.
export type SandboxPaymentStatus = 'requires_action' | 'processing' | 'succeeded' | 'failed' | 'canceled';
export type SandboxEventType = 'payment.processing' | 'payment.succeeded' | 'payment.failed';

export interface SandboxPayment {
  id: string;
  reference: string;
  status: SandboxPaymentStatus;
  sourceAmount: string;
  sourceCurrency: FiatCurrency;
  destinationAsset: Asset;
  network: Network;
  walletAddress: string;
  countryCode: string;
  customerEmail?: string | undefined;
  callbackUrl: string;
  returnUrl: string;
  quote: SandboxQuote;
  createdAt: string;
  updatedAt: string;
  destinationAmount?: string;
  transactionHash?: string;
  explorerUrl?: string;
  failureReason?: string;
}

export interface CallbackAttempt {
  at: string;
  /** null when no HTTP answer came (refused connection, timeout). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  ok: boolean;
}

export interface CallbackEvent {
  id: string;
  type: SandboxEventType;
  paymentId: string;
  createdAt: string;
  /** Serialised once: every attempt sends (and signs) these exact bytes. */
  body: string;
  state: 'pending' | 'delivered' | 'abandoned';
  attempts: CallbackAttempt[];
}

/** A simulated on-chain transfer, shown by the sandbox explorer. */
export interface ChainTransfer {
  hash: string;
  network: Network;
  asset: Asset;
  amount: string;
  to: string;
  paymentId: string;
  confirmedAt: string;
}

export function createSandboxStore() {
  const payments = new Map<string, SandboxPayment>();
  const idByReference = new Map<string, string>();
  const eventsByPayment = new Map<string, CallbackEvent[]>();
  const transfers = new Map<string, ChainTransfer>();

  return {
    addPayment(payment: SandboxPayment) {
      payments.set(payment.id, payment);
      idByReference.set(payment.reference, payment.id);
    },
    payment: (id: string) => payments.get(id),
    paymentByReference(reference: string) {
      const id = idByReference.get(reference);
      return id === undefined ? undefined : payments.get(id);
    },
    addEvent(event: CallbackEvent) {
      const list = eventsByPayment.get(event.paymentId) ?? [];
      list.push(event);
      eventsByPayment.set(event.paymentId, list);
    },
    events: (paymentId: string): readonly CallbackEvent[] => eventsByPayment.get(paymentId) ?? [],
    addTransfer: (transfer: ChainTransfer) => transfers.set(transfer.hash, transfer),
    transfer: (hash: string) => transfers.get(hash),
  };
}

export type SandboxStore = ReturnType<typeof createSandboxStore>;
