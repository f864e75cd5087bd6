// Typed errors: routes and plugins throw these, and the one error handler maps them to the
// envelope. `retryable` tells the client whether the same request may succeed later.

export type ErrorCode =
  | 'BadRequest'
  | 'InvalidId'
  | 'Unauthorized'
  | 'Forbidden'
  | 'AccountNotApproved'
  | 'InsufficientScope'
  | 'PaymentsDisabled'
  | 'NotFound'
  | 'NotImplemented'
  | 'Conflict'
  | 'InsufficientBalance'
  | 'IdempotencyConflict'
  | 'IdempotencyKeyReused'
  | 'PayloadTooLarge'
  | 'ValidationError'
  | 'RateLimited'
  | 'InternalError'
  | 'Unavailable';

export const ERROR_STATUS: Record<ErrorCode, number> = {
  BadRequest: 400,
  InvalidId: 400,
  Unauthorized: 401,
  Forbidden: 403,
  AccountNotApproved: 403,
  InsufficientScope: 403,
  PaymentsDisabled: 403,
  NotFound: 404,
  NotImplemented: 404,
  Conflict: 409,
  InsufficientBalance: 409,
  IdempotencyConflict: 409,
  PayloadTooLarge: 413,
  ValidationError: 422,
  IdempotencyKeyReused: 422,
  RateLimited: 429,
  InternalError: 500,
  Unavailable: 503,
};

/**
 * The typed failures (an ApplicationFailure's `type`, thrown by an activity or an update's validator)
 * that reach a route through a Temporal call, and the envelope code each becomes, with its message.
 * One table for every route; a type not listed is the caller's Conflict. Each is a reason a retry of
 * the same request cannot get past.
 */
export const FAILURE_CODES: Readonly<Record<string, ErrorCode>> = {
  // The refund's address: the zero address, ours, a token contract, malformed.
  RefundAddressRefused: 'ValidationError',
  // The exception's state: not open, not refundable, its money no longer at the deposit address.
  NotRefundable: 'Conflict',
  // The token would revert the transfer (its gas estimate reverted): nothing was sent.
  TransferWouldRevert: 'Conflict',
  PayoutImpossible: 'Conflict',
  NotAcceptable: 'Conflict',
  NotPayable: 'Conflict',
  ExceptionMissing: 'Conflict',
  // A completed payment's refund no longer passes its checks (its payment's rest, its merchant's balance): not reopened.
  RefundNotSendable: 'Conflict',
  // A failure named by its envelope code says the asker's answer in its own words, with its details
  // (a refund's run refusing what it was asked to record).
  ValidationError: 'ValidationError',
  InsufficientBalance: 'InsufficientBalance',
  Conflict: 'Conflict',
  Unavailable: 'Unavailable',
};

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { details?: ErrorDetail[]; retryable?: boolean; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
  get retryable(): boolean {
    return this.options.retryable ?? (this.status === 503 || this.status === 429);
  }
}

export const notFound = (what = 'Resource') => new AppError('NotFound', `${what} not found.`);
export const validationError = (details: ErrorDetail[], message = 'The request body is not valid.') =>
  new AppError('ValidationError', message, { details });

/**
 * Connection failures of Postgres or Temporal, a Postgres refusing connections at its limit (53300),
 * and queries cut by a deadline (ours, QUERY_DEADLINE, or the server's statement_timeout, 57014): a
 * retry may succeed.
 */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; name?: string; cause?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'CONNECT_TIMEOUT',
      'CONNECTION_CLOSED',
      'CONNECTION_ENDED',
      'CONNECTION_DESTROYED',
      'QUERY_DEADLINE',
      '57P01',
      '57P03',
      '57014',
      '53300',
    ].includes(code)
  ) {
    return true;
  }
  if (e?.name === 'ServiceError' || e?.name === 'ConnectionError') return true;
  // gRPC UNAVAILABLE (14) and DEADLINE_EXCEEDED (4) from the Temporal client.
  if (typeof e?.code === 'number' && (e.code === 14 || e.code === 4)) return true;
  return e?.cause !== undefined && e.cause !== err && isUnavailable(e.cause);
}
