import { createParser } from 'eventsource-parser';
import { errorFromAnswer } from './transport.js';
import { signDelivery } from './webhooks.js';
// `svc-checkout-sdk listen --forward-to <url>`: your webhooks on your own machine, as `stripe listen`
// does. It reads your event stream (GET /api/v1/events/stream: `id` is the event's place in your
// order, `event` its type, `data` the webhook body byte for byte) with your API key, signs each event
// again with the forwarder's own secret exactly as the service signs deliveries, and POSTs it to the
// local URL, which verifies it as it verifies real deliveries. Your endpoints' secrets never leave the
// service. After a dropped stream (or one that reached its lifetime) it resumes with Last-Event-ID.
export const LISTEN_USER_AGENT = 'svc-checkout-sdk-listen/2';
/** The service refused the key for the stream (unknown, revoked, or without transactions:read): reconnecting cannot help. */
export class ListenRefused extends Error {
    status;
    code;
    constructor(message, status, code) {
        super(message);
        this.status = status;
        this.code = code;
        this.name = 'ListenRefused';
    }
}
const MAX_BACKOFF_MS = 30_000;
function sleep(ms, signal) {
    return new Promise((resolve) => {
        if (signal.aborted)
            return resolve();
        const timer = setTimeout(done, ms);
        function done() {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            resolve();
        }
        signal.addEventListener('abort', done);
    });
}
const streamUrl = (apiUrl) => `${apiUrl.replace(/\/+$/, '')}/api/v1/events/stream`;
/** Opens the stream; a refusal that no retry can change (401, 403, 404, a redirect) throws ListenRefused. */
async function openStream(apiUrl, apiKey, after, signal) {
    const res = await fetch(streamUrl(apiUrl), {
        headers: {
            authorization: `Bearer ${apiKey}`,
            accept: 'text/event-stream',
            'user-agent': LISTEN_USER_AGENT,
            ...(after !== undefined ? { 'last-event-id': String(after) } : {}),
        },
        redirect: 'manual',
        signal,
    });
    if (res.status === 401 || res.status === 403 || res.status === 404 || (res.status >= 300 && res.status < 400)) {
        const e = errorFromAnswer(res.status, res.headers, await res.text(), 1);
        throw new ListenRefused(`the service refused the stream: ${e.status} ${e.code}: ${e.message}`, res.status, e.code);
    }
    return res;
}
/**
 * Checks that the service accepts the key for the stream (it is valid and has transactions:read)
 * without listening: what `--print-secret` does before it prints anything.
 */
export async function checkStreamAccess(apiUrl, apiKey, signal) {
    const res = await openStream(apiUrl, apiKey, undefined, signal);
    await res.body?.cancel();
    if (!res.ok)
        throw new Error(`the service answered ${res.status} for the event stream`);
}
async function forward(options, secret, event) {
    const { print, signal } = options;
    let eventId;
    try {
        eventId = JSON.parse(event.body).eventId;
    }
    catch {
        eventId = undefined;
    }
    const id = typeof eventId === 'string' ? eventId : `seq_${event.id}`;
    let wait = options.backoffMs ?? 1000;
    const attempts = options.attempts ?? 3;
    for (let attempt = 1;; attempt++) {
        const started = Date.now();
        const t = Math.floor(started / 1000);
        let outcome;
        let ok = false;
        try {
            const res = await fetch(options.forwardTo, {
                method: 'POST',
                headers: {
                    'user-agent': LISTEN_USER_AGENT,
                    'content-type': 'application/json',
                    'svc-event-id': id,
                    'svc-event-type': event.type,
                    ...signDelivery(secret, id, t, event.body),
                },
                body: event.body,
                redirect: 'manual',
                signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)]),
            });
            await res.body?.cancel();
            ok = res.status >= 200 && res.status < 300;
            outcome = String(res.status);
        }
        catch (err) {
            const cause = err.cause;
            outcome = typeof cause?.code === 'string' ? cause.code : err.name === 'TimeoutError' ? 'timeout' : err.message;
        }
        print(`${new Date().toISOString()}  ${event.type}  ${id}  [${event.id}]  -> ${outcome} (${Date.now() - started} ms)`);
        if (ok)
            return;
        if (attempt >= attempts || signal.aborted) {
            print(`  gave up on ${id} after ${attempt} attempt(s); the service's own deliveries are not affected`);
            return;
        }
        await sleep(wait, signal);
        wait = Math.min(wait * 2, MAX_BACKOFF_MS);
    }
}
/**
 * Listens until `signal` aborts (resolves), the service refuses the key (ListenRefused), or it cannot
 * be reached `maxReconnects` times in a row (throws). Events are forwarded one at a time, in order;
 * after a dropped connection the stream resumes after the last event handled, so none is missed and
 * none is forwarded twice. The secret is printed once, after the service has accepted the key.
 */
export async function listen(options) {
    const { signal, print } = options;
    const backoffMs = options.backoffMs ?? 1000;
    const maxReconnects = options.maxReconnects ?? 10;
    const wanted = options.events && options.events.length > 0 ? new Set(options.events) : null;
    let secret;
    let lastId = options.after;
    let failures = 0;
    while (!signal.aborted) {
        let res;
        try {
            res = await openStream(options.apiUrl, options.apiKey, lastId, signal);
        }
        catch (err) {
            if (err instanceof ListenRefused)
                throw err;
            if (signal.aborted)
                return;
            const cause = err.cause;
            print(`cannot reach ${options.apiUrl} (${typeof cause?.code === 'string' ? cause.code : err.message})`);
        }
        if (res?.ok && res.body) {
            failures = 0;
            if (secret === undefined) {
                secret = options.secret();
                print(`Ready. Your webhook signing secret is ${secret} (the same on every run of this forwarder; verify the forwarded events with it)`);
                print(`Forwarding ${wanted ? [...wanted].join(', ') : 'every event'} to ${options.forwardTo}; Ctrl-C to stop.`);
            }
            print(lastId === undefined ? 'Connected; waiting for events.' : `Connected; resuming after event ${lastId}.`);
            const queue = [];
            const parser = createParser({ onEvent: (e) => queue.push({ id: e.id ?? '', type: e.event ?? 'message', body: e.data }) });
            const decoder = new TextDecoder();
            try {
                for await (const chunk of res.body) {
                    parser.feed(decoder.decode(chunk, { stream: true }));
                    while (queue.length > 0) {
                        const event = queue.shift();
                        if (!wanted || wanted.has(event.type))
                            await forward(options, secret, event);
                        if (/^\d+$/.test(event.id))
                            lastId = Number(event.id);
                    }
                }
            }
            catch {
                // The connection dropped (or Ctrl-C): reconnect below, after the last event handled.
            }
            if (signal.aborted)
                return;
            print('The stream ended; reconnecting.');
        }
        else if (res) {
            await res.body?.cancel();
            print(`the service answered ${res.status}; reconnecting`);
        }
        failures++;
        if (failures > maxReconnects)
            throw new Error(`gave up after ${maxReconnects} failed connections in a row`);
        const retryAfter = Number(res?.headers.get('retry-after') ?? 0) * 1000;
        await sleep(Math.max(retryAfter, Math.min(backoffMs * 2 ** (failures - 1), MAX_BACKOFF_MS)), signal);
    }
}
