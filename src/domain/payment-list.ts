import { AppError } from './errors';
import { isCanonicalPaymentId } from './ids';

// Issue 29 item 1: a merchant's own payments, newest first, as a list to page through, filter,
// search and export. What a filter or a search means is decided here; the query only runs it.

export interface PaymentListFilter {
  statuses?: readonly string[];
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
  currency?: string;
  /** Amount in minor units of the payment's own currency (with `currency`, of that one), inclusive. */
  minAmountMinor?: bigint;
  maxAmountMinor?: bigint;
  asset?: string;
  network?: string;
  rail?: string;
  /** Only payments with an exception still open (money an operator or the merchant must resolve). */
  openExceptions?: boolean;
  search?: PaymentSearch;
}

/**
 * What the one search box looks for, from the shape of what was typed: a transaction hash is a
 * deposit or a payout of the payment; an address with an @ is the customer's email; a payment id
 * is the payment; anything else is the merchant's order id (theirs or the plugin's).
 */
export type PaymentSearch =
  | { kind: 'transaction'; hash: string }
  | { kind: 'email'; email: string }
  | { kind: 'payment'; id: string }
  | { kind: 'order'; orderId: string };

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

export function paymentSearch(text: string): PaymentSearch | undefined {
  const q = text.trim();
  if (!q) return undefined;
  if (TX_HASH.test(q)) return { kind: 'transaction', hash: q.toLowerCase() };
  if (q.includes('@')) return { kind: 'email', email: q.toLowerCase() };
  if (isCanonicalPaymentId(q)) return { kind: 'payment', id: q };
  return { kind: 'order', orderId: q };
}

/** Where a page ends: the last row's creation time and id (ties on time are broken by id). */
export interface PaymentListPosition {
  createdAt: Date;
  id: string;
}

/** The position as an opaque token a client hands back for the next page. */
export function encodeListCursor(p: PaymentListPosition): string {
  return Buffer.from(JSON.stringify([p.createdAt.toISOString(), p.id])).toString('base64url');
}

export function decodeListCursor(cursor: string): PaymentListPosition {
  const bad = () => new AppError('BadRequest', 'cursor is not one this list handed out.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw bad();
  const [at, id] = parsed as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || !isCanonicalPaymentId(id)) throw bad();
  const createdAt = new Date(at);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) throw bad();
  return { createdAt, id };
}

/** A page's size: what was asked for, within bounds a browser table and one query keep fast. */
export const PAYMENT_LIST_DEFAULT_LIMIT = 25;
export const PAYMENT_LIST_MAX_LIMIT = 100;

/** Checks a filter's ranges make sense (an empty range is a mistake, not an empty list). */
export function checkPaymentListFilter(f: PaymentListFilter): void {
  if (f.from && f.to && f.from >= f.to) throw new AppError('BadRequest', 'from must be before to.');
  if (f.minAmountMinor !== undefined && f.maxAmountMinor !== undefined && f.minAmountMinor > f.maxAmountMinor) {
    throw new AppError('BadRequest', 'minAmount must not be above maxAmount.');
  }
}
