// One error path, as Stripe's and Svix's SDKs have: every failed call throws a CheckoutApiError,
// whether the service answered with its envelope or no answer came at all. Codes from the service are
// its own (`NotFound`, `ValidationError`, `RateLimited`, …); the SDK's own are snake_case, so a
// caller can tell "the service said" from "the network failed".
export class CheckoutApiError extends Error {
    /** The HTTP status; null when no answer came (`network_error`, `timeout`, `aborted`). */
    status;
    /** The envelope's `error` (`NotFound`, `RateLimited`, …) or one of the SDK's ClientErrorCode. */
    code;
    /** The service's `requestId` (also its x-request-id header): quote it to support. */
    requestId;
    details;
    /** The answer's Retry-After, in seconds, when it had one. */
    retryAfterSeconds;
    /** How many times the request was sent, retries included. */
    attempts;
    constructor(init) {
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
export function isCheckoutApiError(err) {
    return err instanceof CheckoutApiError || (err instanceof Error && err.name === 'CheckoutApiError' && 'code' in err);
}
