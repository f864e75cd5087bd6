import { isFiatCurrency } from './currencies';
import { AppError, validationError, type ErrorDetail } from './errors';
import { fiatDecimals, toUnits } from './money';
import { isCanonicalPaymentId } from './ids';

// A merchant's own payments, newest first, as a list to page through, filter,
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
  /** Only the sessions customers opened of this payment link. */
  paymentLinkId?: string;
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

/**
 * Where a page ends: the last row's creation time and id (ties on time are broken by id). The time
 * is Postgres's own text of it, to the microsecond: a JavaScript date keeps milliseconds only, and a
 * cursor cut to the millisecond would skip the rows created later in that same millisecond.
 */
export interface PaymentListPosition {
  /** ISO 8601 in UTC with six decimals: 2026-11-01T10:00:00.123456Z. */
  at: string;
  id: string;
}

const POSITION_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * Whether a position's time names an instant Postgres takes as it is: JavaScript reads 2026-02-30 as
 * 2 March and year 0 as 1 BC, where Postgres refuses both (a 500 for an edited cursor).
 */
function existingInstant(at: string): boolean {
  const parsed = new Date(at);
  return !Number.isNaN(parsed.getTime()) && !at.startsWith('0000') && parsed.toISOString().slice(0, 19) === at.slice(0, 19);
}

/** The position as an opaque token a client hands back for the next page. */
export function encodeListCursor(p: PaymentListPosition): string {
  return Buffer.from(JSON.stringify([p.at, p.id])).toString('base64url');
}

/** The position a cursor holds; `isId` checks the id is one of the listed rows' kind (a payment's by default, a payout's for payouts). */
export function decodeListCursor(cursor: string, isId: (id: string) => boolean = isCanonicalPaymentId): PaymentListPosition {
  const bad = () => new AppError('BadRequest', 'cursor is not one this list handed out.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw bad();
  const [at, id] = parsed as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || !isId(id)) throw bad();
  if (!POSITION_AT.test(at) || !existingInstant(at)) throw bad();
  return { at, id };
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

/** The list's filter as a person types it (the dashboard's URL search params), every field text. */
export interface PaymentListQuery {
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  currency?: string | undefined;
  minAmount?: string | undefined;
  maxAmount?: string | undefined;
  asset?: string | undefined;
  network?: string | undefined;
  rail?: string | undefined;
  openExceptions?: boolean | undefined;
  link?: string | undefined;
  q?: string | undefined;
}

/**
 * The typed query as a filter. Statuses are comma-separated. An amount is a decimal in a currency's
 * own units, so an amount bound needs the currency: 10 USD and 10 JPY are not the same bound, and
 * payments in several currencies have no common amount to compare.
 */
export function paymentListFilter(q: PaymentListQuery): PaymentListFilter {
  const details: ErrorDetail[] = [];
  const currency = q.currency?.toUpperCase();
  if (currency && !isFiatCurrency(currency)) details.push({ path: 'currency', message: `Unsupported currency ${q.currency}.` });
  const amount = (path: 'minAmount' | 'maxAmount'): bigint | undefined => {
    const text = q[path];
    if (text === undefined || text === '') return undefined;
    if (!currency || !isFiatCurrency(currency)) {
      details.push({ path, message: 'An amount filter needs a currency.' });
      return undefined;
    }
    try {
      const minor = toUnits(text, fiatDecimals(currency));
      if (minor >= 0n) return minor;
    } catch {
      // Said below, once, whatever the reason.
    }
    details.push({ path, message: `Not a ${currency} amount.` });
    return undefined;
  };
  const statuses = q.status ? q.status.split(',').filter(Boolean) : undefined;
  const filter: PaymentListFilter = {
    ...(statuses?.length ? { statuses } : {}),
    ...(q.from ? { from: new Date(q.from) } : {}),
    ...(q.to ? { to: new Date(q.to) } : {}),
    ...(currency ? { currency } : {}),
    ...(q.asset ? { asset: q.asset } : {}),
    ...(q.network ? { network: q.network } : {}),
    ...(q.rail ? { rail: q.rail } : {}),
    ...(q.openExceptions ? { openExceptions: true } : {}),
    ...(q.link ? { paymentLinkId: q.link } : {}),
  };
  const min = amount('minAmount');
  const max = amount('maxAmount');
  if (min !== undefined) filter.minAmountMinor = min;
  if (max !== undefined) filter.maxAmountMinor = max;
  const search = q.q ? paymentSearch(q.q) : undefined;
  if (search) filter.search = search;
  if (details.length) throw validationError(details, 'The filter is not valid.');
  return filter;
}
