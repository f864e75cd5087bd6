import { CheckoutApiError } from './errors.js';
export interface RetryOptions {
    /** Retries after the first attempt (default 2: three attempts at most). 0 turns retrying off. */
    maxRetries?: number;
    /** Each attempt's timeout, from sending to the last byte of the answer (default 30 000 ms). */
    timeoutMs?: number;
    /** The first retry's delay before jitter (default 500 ms); each next one doubles, up to maxRetryDelayMs. */
    initialRetryDelayMs?: number;
    /** The longest backoff between two attempts (default 8 000 ms). */
    maxRetryDelayMs?: number;
    /** A Retry-After longer than this is not waited for: the error is thrown at once (default 60 000 ms). */
    maxRetryAfterMs?: number;
}
/** What one call may set for itself, beside its params and body. */
export interface PerRequestOptions {
    timeoutMs?: number;
    maxRetries?: number;
}
/** Seconds (RFC 9110 allows a number of seconds or an HTTP date); null when absent or unreadable. */
export declare function retryAfterMs(header: string | null, now?: number): number | null;
/** Full-jitter-ish backoff: the doubled delay, scaled by a random factor in [0.5, 1) so clients spread out. */
export declare function backoffMs(retry: number, options: Required<RetryOptions>, random?: () => number): number;
/** The service's answer to a failed call as one error: its envelope (v1 or the simple API's), else what can be said. */
export declare function errorFromAnswer(status: number, headers: Headers, text: string, attempts: number): CheckoutApiError;
/**
 * A fetch for openapi-fetch: takes its Request, sends it until it succeeds or the retries are spent,
 * and answers a Response whose body is already read (the timeout covers the whole answer). Per-call
 * options arrive as properties of the Request, where openapi-fetch puts init keys a Request lacks.
 */
export declare function retryingFetch(options?: RetryOptions & {
    fetch?: typeof fetch;
    random?: () => number;
}): (request: Request) => Promise<Response>;
