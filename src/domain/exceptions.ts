import { depositLogKey, type DepositFact } from './deposit-fact';
import { formatCrypto } from './money';

// Money off the happy path, as the merchant and the operator see it. Pure.

// wrong_asset: a token other than the payment's own reached its deposit address.
// reorged: a credited log whose block left the chain after the payment completed on it.
export const EXCEPTION_KINDS = ['late', 'duplicate', 'overpaid', 'underpaid', 'unverified', 'wrong_asset', 'reorged'] as const;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];
export const EXCEPTION_STATUSES = ['open', 'accepted', 'refunded'] as const;
export type ExceptionStatus = (typeof EXCEPTION_STATUSES)[number];

/** exc_ + 24 base62. */
export const EXCEPTION_ID = /^exc_[A-Za-z0-9]{24}$/;
export const isExceptionId = (id: string) => EXCEPTION_ID.test(id);

/**
 * What identifies one arrival of money announced by a provider: its transfer when the provider names
 * one (`tx:<network>:<hash>`), so the provider's word and the chain log of that transfer are one
 * arrival (one exception), else the provider's event.
 */
export function arrivalKeyOf(input: {
  network: string;
  transactionHash?: string | null | undefined;
  eventId?: string | undefined;
}): string {
  if (input.transactionHash) return `tx:${input.network.toLowerCase()}:${input.transactionHash.toLowerCase()}`;
  return `provider:${input.eventId ?? 'unknown'}`;
}

/**
 * A log seen on chain: `tx:<network>:<hash>:<logIndex>`, its identity (`depositLogKey`) under the
 * `tx:` prefix, one arrival per log (two transfers in one transaction are two arrivals), under its
 * transaction's key (`arrivalKeyOf`) so a provider's word for the same transfer finds it.
 */
export const logArrivalKey = (log: Pick<DepositFact, 'network' | 'transactionHash' | 'logIndex'>) =>
  `tx:${depositLogKey({ ...log, network: log.network.toLowerCase() })}`;

/** The transaction key a log's or a provider's arrival key falls under, or null when it names no transfer. */
export function transferKeyOf(arrivalKey: string): string | null {
  const parts = arrivalKey.split(':');
  return parts[0] === 'tx' && parts.length >= 3 ? parts.slice(0, 3).join(':') : null;
}

/**
 * An exception is an amount of money that arrived, or that a provider says it sent.
 * Nothing, or less than nothing, is no money: an operator could accept or refund it, and a merchant
 * would be told of it. Whatever writes an exception asks this first; Postgres holds the same rule
 * (payment_exceptions_amount_check).
 */
export class ExceptionAmountNotPositive extends Error {
  constructor(readonly amountMicro: bigint) {
    super(`An exception's amount must be positive (got ${amountMicro} micro units).`);
    this.name = 'ExceptionAmountNotPositive';
  }
}

export function requirePositiveExceptionAmount(amountMicro: bigint): bigint {
  if (amountMicro <= 0n) throw new ExceptionAmountNotPositive(amountMicro);
  return amountMicro;
}

/** Only money that arrived after the end, or short, can be accepted as the payment. */
export const isAcceptable = (kind: ExceptionKind) => kind === 'late' || kind === 'underpaid';

/**
 * Money a refund can send back from the deposit address: what arrived and was never paid out (a
 * wrong asset in the token that arrived). Not `overpaid` (the excess is part of the gross, already the
 * merchant's), nor `unverified` (no money arrived), nor `reorged` (the money left with its block).
 */
export const isRefundable = (kind: ExceptionKind) =>
  kind === 'late' || kind === 'duplicate' || kind === 'underpaid' || kind === 'wrong_asset';

export interface ExceptionView {
  id: string;
  kind: ExceptionKind;
  status: ExceptionStatus;
  /** 6 decimals, in the session's asset. */
  amount: string;
  references: Record<string, unknown>;
  createdAt: string;
  resolvedAt: string | null;
}

export function exceptionView(row: {
  id: string;
  kind: ExceptionKind;
  status: ExceptionStatus;
  amountMicro: bigint;
  references: unknown;
  createdAt: Date;
  resolvedAt: Date | null;
}): ExceptionView {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    amount: formatCrypto(row.amountMicro),
    references: (row.references ?? {}) as Record<string, unknown>,
    createdAt: row.createdAt.toISOString(),
    resolvedAt: row.resolvedAt ? row.resolvedAt.toISOString() : null,
  };
}

export interface ExceptionEventInput {
  eventId: string;
  merchantId: string;
  paymentId: string;
  orderId: string | null;
  destinationAsset: string;
  network: string;
  exception: ExceptionView;
  createdAt: Date;
}

/** The `payment.exception` event body: the session it concerns, the kind, amount and references. */
export function exceptionEventBody(e: ExceptionEventInput): Record<string, unknown> {
  return {
    event: 'payment.exception',
    eventId: e.eventId,
    eventSource: 'exception',
    merchantId: e.merchantId,
    sessionId: e.paymentId,
    transactionId: e.paymentId,
    orderId: e.orderId ?? '',
    exceptionId: e.exception.id,
    kind: e.exception.kind,
    status: e.exception.status,
    amount: e.exception.amount,
    destinationAsset: e.destinationAsset,
    network: e.network,
    references: e.exception.references,
    createdAt: e.createdAt.toISOString(),
  };
}

/** Where a refund sent an exception's money: the confirmed transfer back to the customer. */
export interface RefundView {
  address: string;
  /** 6 decimals. */
  amount: string;
  transactionHash: string;
  explorerUrl: string | null;
}

/** `payment.refunded`: the exception's body, refunded, with the transfer that returned the money. */
export function refundEventBody(e: ExceptionEventInput & { refund: RefundView }): Record<string, unknown> {
  return { ...exceptionEventBody(e), event: 'payment.refunded', refund: e.refund };
}
