"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.retryAfterMs = retryAfterMs;
exports.backoffMs = backoffMs;
exports.errorFromAnswer = errorFromAnswer;
exports.retryingFetch = retryingFetch;
const node_crypto_1 = require("node:crypto");
const errors_js_1 = require("./errors.js");
const DEFAULTS = {
    maxRetries: 2,
    timeoutMs: 30_000,
    initialRetryDelayMs: 500,
    maxRetryDelayMs: 8_000,
    maxRetryAfterMs: 60_000,
};
/** Seconds (RFC 9110 allows a number of seconds or an HTTP date); null when absent or unreadable. */
function retryAfterMs(header, now = Date.now()) {
    if (header === null || header.trim() === '')
        return null;
    if (/^\d+$/.test(header.trim()))
        return Number(header.trim()) * 1000;
    const at = Date.parse(header);
    return Number.isNaN(at) ? null : Math.max(0, at - now);
}
/** Full-jitter-ish backoff: the doubled delay, scaled by a random factor in [0.5, 1) so clients spread out. */
function backoffMs(retry, options, random = Math.random) {
    const ceiling = Math.min(options.maxRetryDelayMs, options.initialRetryDelayMs * 2 ** (retry - 1));
    return Math.round(ceiling * (0.5 + random() / 2));
}
/** 501 is "not built", never "not now"; a 409 with Retry-After is an idempotent twin still running. */
function retryableStatus(status, hasRetryAfter) {
    return status === 429 || (status >= 500 && status !== 501) || (status === 409 && hasRetryAfter);
}
function wait(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal.aborted)
            return reject(signal.reason);
        const timer = setTimeout(() => {
            signal.removeEventListener('abort', onAbort);
            resolve();
        }, ms);
        function onAbort() {
            clearTimeout(timer);
            reject(signal.reason);
        }
        signal.addEventListener('abort', onAbort, { once: true });
    });
}
function causeCode(err) {
    const cause = err.cause;
    return typeof cause?.code === 'string' ? cause.code : undefined;
}
/** The service's answer to a failed call as one error: its envelope (v1 or the simple API's), else what can be said. */
function errorFromAnswer(status, headers, text, attempts) {
    let body;
    try {
        body = JSON.parse(text);
    }
    catch {
        body = undefined;
    }
    const retryAfter = retryAfterMs(headers.get('retry-after'));
    const requestId = typeof body?.requestId === 'string' ? body.requestId : headers.get('x-request-id');
    const common = { status, requestId, attempts, retryAfterSeconds: retryAfter === null ? null : Math.ceil(retryAfter / 1000) };
    if (body && typeof body.error === 'string' && typeof body.message === 'string') {
        const details = Array.isArray(body.details) ? body.details : [];
        return new errors_js_1.CheckoutApiError({ ...common, code: body.error, message: body.message, details });
    }
    return new errors_js_1.CheckoutApiError({ ...common, code: 'unexpected_response', message: `HTTP ${status} without the service's error envelope` });
}
/**
 * A fetch for openapi-fetch: takes its Request, sends it until it succeeds or the retries are spent,
 * and answers a Response whose body is already read (the timeout covers the whole answer). Per-call
 * options arrive as properties of the Request, where openapi-fetch puts init keys a Request lacks.
 */
function retryingFetch(options = {}) {
    const base = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
    const send = options.fetch ?? globalThis.fetch;
    return async (request) => {
        const own = request;
        const timeoutMs = own.timeoutMs ?? base.timeoutMs;
        const maxRetries = own.maxRetries ?? base.maxRetries;
        const headers = new Headers(request.headers);
        if (request.method === 'POST' && !headers.has('idempotency-key'))
            headers.set('idempotency-key', (0, node_crypto_1.randomUUID)());
        // Read once, sent again as it is with every attempt (a stream could be read only once).
        const body = request.body ? await request.arrayBuffer() : undefined;
        const caller = request.signal;
        for (let attempt = 1;; attempt++) {
            const timeout = AbortSignal.timeout(timeoutMs);
            const signal = AbortSignal.any([caller, timeout]);
            let failure;
            let delay = null;
            try {
                const res = await send(new Request(request.url, { method: request.method, headers, body: body ?? null, signal, redirect: request.redirect }));
                const bytes = await res.arrayBuffer();
                if (res.ok) {
                    const empty = res.status === 204 || res.status === 205 || res.status === 304;
                    return new Response(empty ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
                }
                failure = errorFromAnswer(res.status, res.headers, new TextDecoder().decode(bytes), attempt);
                const after = retryAfterMs(res.headers.get('retry-after'));
                if (!retryableStatus(res.status, after !== null))
                    throw failure;
                if (after !== null) {
                    if (after > base.maxRetryAfterMs)
                        throw failure;
                    delay = after;
                }
            }
            catch (err) {
                if (err instanceof errors_js_1.CheckoutApiError)
                    throw err;
                if (caller.aborted) {
                    throw new errors_js_1.CheckoutApiError({
                        status: null,
                        code: 'aborted',
                        message: 'The request was aborted by its caller.',
                        attempts: attempt,
                        cause: err,
                    });
                }
                failure = timeout.aborted
                    ? new errors_js_1.CheckoutApiError({
                        status: null,
                        code: 'timeout',
                        message: `No answer within ${timeoutMs} ms.`,
                        attempts: attempt,
                        cause: err,
                    })
                    : new errors_js_1.CheckoutApiError({
                        status: null,
                        code: 'network_error',
                        message: `The service could not be reached (${causeCode(err) ?? err.message}).`,
                        attempts: attempt,
                        cause: err,
                    });
            }
            if (attempt > maxRetries)
                throw failure;
            try {
                await wait(delay ?? backoffMs(attempt, base, options.random), caller);
            }
            catch (err) {
                throw new errors_js_1.CheckoutApiError({
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
