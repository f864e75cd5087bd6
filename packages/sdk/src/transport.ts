import { randomUUID } from 'node:crypto';
import { CheckoutApiError, type CheckoutApiErrorDetail } from './errors.js';

// The fetch every call of the client goes through: bounded retries with exponential backoff and
// jitter on network errors, timeouts, 429 and 5xx (Retry-After honoured), a timeout per attempt, and
// an Idempotency-Key on every POST, made once and sent again with each retry so the service does the
// work at most once. Whatever fails comes out as one CheckoutApiError.

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

const DEFAULTS: Required<RetryOptions> = {
  maxRetries: 2,
  timeoutMs: 30_000,
  initialRetryDelayMs: 500,
  maxRetryDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** Seconds (RFC 9110 allows a number of seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Full-jitter-ish backoff: the doubled delay, scaled by a random factor in [0.5, 1) so clients spread out. */
export function backoffMs(retry: number, options: Required<RetryOptions>, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxRetryDelayMs, options.initialRetryDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** 501 is "not built", never "not now"; a 409 with Retry-After is an idempotent twin still running. */
function retryableStatus(status: number, hasRetryAfter: boolean): boolean {
  return status === 429 || (status >= 500 && status !== 501) || (status === 409 && hasRetryAfter);
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason as Error);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function causeCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** The service's answer to a failed call as one error: its envelope (v1 or the simple API's), else what can be said. */
export function errorFromAnswer(status: number, headers: Headers, text: string, attempts: number): CheckoutApiError {
  let body: { error?: unknown; message?: unknown; requestId?: unknown; details?: unknown } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const retryAfter = retryAfterMs(headers.get('retry-after'));
  const requestId = typeof body?.requestId === 'string' ? body.requestId : headers.get('x-request-id');
  const common = { status, requestId, attempts, retryAfterSeconds: retryAfter === null ? null : Math.ceil(retryAfter / 1000) };
  if (body && typeof body.error === 'string' && typeof body.message === 'string') {
    const details = Array.isArray(body.details) ? (body.details as CheckoutApiErrorDetail[]) : [];
    return new CheckoutApiError({ ...common, code: body.error, message: body.message, details });
  }
  return new CheckoutApiError({ ...common, code: 'unexpected_response', message: `HTTP ${status} without the service's error envelope` });
}

/**
 * A fetch for openapi-fetch: takes its Request, sends it until it succeeds or the retries are spent,
 * and answers a Response whose body is already read (the timeout covers the whole answer). Per-call
 * options arrive as properties of the Request, where openapi-fetch puts init keys a Request lacks.
 */
export function retryingFetch(
  options: RetryOptions & { fetch?: typeof fetch; random?: () => number } = {},
): (request: Request) => Promise<Response> {
  const base = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) } as Required<RetryOptions>;
  const send = options.fetch ?? globalThis.fetch;
  return async (request: Request) => {
    const own = request as Request & PerRequestOptions;
    const timeoutMs = own.timeoutMs ?? base.timeoutMs;
    const maxRetries = own.maxRetries ?? base.maxRetries;
    const headers = new Headers(request.headers);
    if (request.method === 'POST' && !headers.has('idempotency-key')) headers.set('idempotency-key', randomUUID());
    // Read once, sent again as it is with every attempt (a stream could be read only once).
    const body = request.body ? await request.arrayBuffer() : undefined;
    const caller = request.signal;

    for (let attempt = 1; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([caller, timeout]);
      let failure: CheckoutApiError;
      let delay: number | null = null;
      try {
        const res = await send(
          new Request(request.url, { method: request.method, headers, body: body ?? null, signal, redirect: request.redirect }),
        );
        const bytes = await res.arrayBuffer();
        if (res.ok) {
          const empty = res.status === 204 || res.status === 205 || res.status === 304;
          return new Response(empty ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
        }
        failure = errorFromAnswer(res.status, res.headers, new TextDecoder().decode(bytes), attempt);
        const after = retryAfterMs(res.headers.get('retry-after'));
        if (!retryableStatus(res.status, after !== null)) throw failure;
        if (after !== null) {
          if (after > base.maxRetryAfterMs) throw failure;
          delay = after;
        }
      } catch (err) {
        if (err instanceof CheckoutApiError) throw err;
        if (caller.aborted) {
          throw new CheckoutApiError({
            status: null,
            code: 'aborted',
            message: 'The request was aborted by its caller.',
            attempts: attempt,
            cause: err,
          });
        }
        failure = timeout.aborted
          ? new CheckoutApiError({
              status: null,
              code: 'timeout',
              message: `No answer within ${timeoutMs} ms.`,
              attempts: attempt,
              cause: err,
            })
          : new CheckoutApiError({
              status: null,
              code: 'network_error',
              message: `The service could not be reached (${causeCode(err) ?? (err as Error).message}).`,
              attempts: attempt,
              cause: err,
            });
      }
      if (attempt > maxRetries) throw failure;
      try {
        await wait(delay ?? backoffMs(attempt, base, options.random), caller);
      } catch (err) {
        throw new CheckoutApiError({
          status: null,
          code: 'aborted',
          message: 'The request was aborted by its caller.',
          attempts: attempt,
          cause: err,
        });
      }
    }
  };
}
