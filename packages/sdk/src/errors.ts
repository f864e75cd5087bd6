// One error path, as Stripe's and Svix's SDKs have: every failed call throws a CheckoutApiError,
// whether the service answered with its envelope or no answer came at all. Codes from the service are
// its own (`NotFound`, `ValidationError`, `RateLimited`, …); the SDK's own are snake_case, so a
// caller can tell "the service said" from "the network failed".

/** A field the service refused, as its envelope's `details` names it. */
export interface CheckoutApiErrorDetail {
  path: string;
  message: string;
}

/** The SDK's own codes, for failures with no answer from the service. */
export type ClientErrorCode =
  /** No connection, or it broke before an answer (DNS, refused, reset). */
  | 'network_error'
  /** No answer within the request's timeout. */
  | 'timeout'
  /** The caller's own AbortSignal stopped the request. */
  | 'aborted'
  /** An answer that is not the service's envelope (a proxy's error page, say). */
  | 'unexpected_response';

export interface CheckoutApiErrorInit {
  status: number | null;
  code: string;
  message: string;
  requestId?: string | null;
  details?: CheckoutApiErrorDetail[];
  retryAfterSeconds?: number | null;
  attempts?: number;
  cause?: unknown;
}

export class CheckoutApiError extends Error {
  /** The HTTP status; null when no answer came (`network_error`, `timeout`, `aborted`). */
  readonly status: number | null;
  /** The envelope's `error` (`NotFound`, `RateLimited`, …) or one of the SDK's ClientErrorCode. */
  readonly code: string;
  /** The service's `requestId` (also its x-request-id header): quote it to support. */
  readonly requestId: string | null;
  readonly details: CheckoutApiErrorDetail[];
  /** The answer's Retry-After, in seconds, when it had one. */
  readonly retryAfterSeconds: number | null;
  /** How many times the request was sent, retries included. */
  readonly attempts: number;

  constructor(init: CheckoutApiErrorInit) {
    super(init.message, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.name = 'CheckoutApiError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.details = init.details ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.attempts = init.attempts ?? 1;
  }
}

/** True for every CheckoutApiError, also one made by another copy of the SDK (class identity does not cross copies). */
export function isCheckoutApiError(err: unknown): err is CheckoutApiError {
  return err instanceof CheckoutApiError || (err instanceof Error && err.name === 'CheckoutApiError' && 'code' in err);
}
