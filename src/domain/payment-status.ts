// Checkout session states of decisions §6. Pure: the workflow's state machine and the API share it.

export const PAYMENT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const TERMINAL_STATUSES: readonly PaymentStatus[] = ['completed', 'failed', 'expired', 'canceled'];
export const isTerminal = (s: PaymentStatus) => TERMINAL_STATUSES.includes(s);

const ALLOWED: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ['processing', 'completed', 'failed', 'expired', 'canceled'],
  processing: ['completed', 'failed', 'expired'],
  completed: [],
  failed: [],
  expired: [],
  canceled: [],
};

export const canTransition = (from: PaymentStatus, to: PaymentStatus) => ALLOWED[from].includes(to);

/** The v1 webhook event a transition into `status` emits (pending emits none). */
export function eventTypeFor(status: PaymentStatus): string | null {
  return status === 'pending' ? null : `payment.${status}`;
}

export const RAIL_FIAT_TO_CRYPTO = 'fiat_to_crypto';
