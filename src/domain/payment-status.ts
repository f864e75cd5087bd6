// The two payment state machines, as tables. Pure: the workflows decide with them
// and the conditional SQL of the repositories writes with them, so both always agree.

export const PAYMENT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Why a checkout session was canceled: the customer's Cancel, or another session paid its payment link. */
export const CANCEL_REASONS = ['customer', 'link_paid'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export const SIMPLE_ORDER_STATUSES = ['pending', 'processing', 'settled', 'failed', 'expired'] as const;
export type SimpleOrderStatus = (typeof SIMPLE_ORDER_STATUSES)[number];

type Table<S extends string> = Readonly<Record<S, readonly S[]>>;

/** Checkout sessions: pending → processing → completed | failed; pending | processing → expired; pending → canceled. */
export const CHECKOUT_TRANSITIONS: Table<PaymentStatus> = {
  pending: ['processing', 'completed', 'failed', 'expired', 'canceled'],
  processing: ['completed', 'failed', 'expired'],
  completed: [],
  failed: [],
  expired: [],
  canceled: [],
};

/** Simple-API orders: pending → processing → settled | failed; pending → expired. */
export const SIMPLE_ORDER_TRANSITIONS: Table<SimpleOrderStatus> = {
  pending: ['processing', 'settled', 'failed', 'expired'],
  processing: ['settled', 'failed'],
  settled: [],
  failed: [],
  expired: [],
};

const allows = <S extends string>(table: Table<S>, from: S, to: S) => table[from].includes(to);
/** Every status a move into `to` may start from: the WHERE of a conditional update. */
const sourcesOf = <S extends string>(table: Table<S>, to: S): S[] => (Object.keys(table) as S[]).filter((from) => allows(table, from, to));

export const canTransition = (from: PaymentStatus, to: PaymentStatus) => allows(CHECKOUT_TRANSITIONS, from, to);
export const checkoutSourcesOf = (to: PaymentStatus) => sourcesOf(CHECKOUT_TRANSITIONS, to);
export const isTerminal = (s: PaymentStatus) => CHECKOUT_TRANSITIONS[s].length === 0;
export const TERMINAL_STATUSES: readonly PaymentStatus[] = PAYMENT_STATUSES.filter(isTerminal);

export const canTransitionOrder = (from: SimpleOrderStatus, to: SimpleOrderStatus) => allows(SIMPLE_ORDER_TRANSITIONS, from, to);
export const orderSourcesOf = (to: SimpleOrderStatus) => sourcesOf(SIMPLE_ORDER_TRANSITIONS, to);
export const isOrderOpen = (s: SimpleOrderStatus) => SIMPLE_ORDER_TRANSITIONS[s].length > 0;

/** The v1 webhook event a transition into `status` emits (pending emits none). */
export function eventTypeFor(status: PaymentStatus): string | null {
  return status === 'pending' ? null : `payment.${status}`;
}
