import { createParser } from 'eventsource-parser';
import { issueWebhookSecret } from '../domain/credentials';
import { deliverySignatureHeaders } from '../domain/signatures';
import { postWebhook } from '../webhooks/post';
import { parseJson, toApiError } from './admin-client';

// `npm run ops -- listen --forward-to <url>`: a merchant's webhooks on a developer's machine, as
// `stripe listen` does. It reads the merchant's event stream (GET /api/v1/events/stream, docs/webhooks.md)
// with the merchant's API key, signs each event again with a secret of its own, made here and
// printed once, exactly as the service signs its webhooks (svc-signature and the Standard Webhooks
// headers), and POSTs it to the local URL. The local server verifies with that secret the way it
// verifies real deliveries; the merchant's real webhook secrets never leave the service.

export const LISTEN_USER_AGENT = 'svc-listen/1.0';

export interface ListenOptions {
  apiUrl: string;
  apiKey: string;
  forwardTo: string;
  /** Resume after this event (`Last-Event-ID`), e.g. the last id a previous run printed. */
  after?: number;
  /** The signing secret to use instead of a new one (a local server configured with it before). */
  secret?: string;
  print: (line: string) => void;
  signal: AbortSignal;
  /** Attempts per event before it is given up and reported (default 3). */
  attempts?: number;
  /** Wait before the first retry of a forward and the first reconnect (default 1000 ms), doubling to 30 s. */
  backoffMs?: number;
  /** Failed connection attempts in a row after which listening stops (default 10). */
  maxReconnects?: number;
  timeoutMs?: number;
}

/** The service refused the stream (a bad key, a missing scope): reconnecting cannot help. */
export class StreamRefused extends Error {}

const MAX_BACKOFF_MS = 30_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/**
 * Listens until `signal` aborts (0), or until the service refuses the key (StreamRefused) or cannot
 * be reached `maxReconnects` times in a row (throws). Events are forwarded one at a time, in order;
 * after a dropped connection the stream resumes after the last event handled, so none is missed
 * and none is forwarded twice.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const { signal, print } = options;
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 1000;
  const maxReconnects = options.maxReconnects ?? 10;
  const secret = options.secret ?? issueWebhookSecret();
  const streamUrl = `${options.apiUrl}/api/v1/events/stream`;
  let lastId = options.after;
  let failures = 0;

  let announced = false;

  async function forward(event: { id: string; type: string; body: string }): Promise<void> {
    const eventId = (parseJson(event.body) as { eventId?: unknown } | undefined)?.eventId;
    const id = typeof eventId === 'string' ? eventId : `seq_${event.id}`;
    let wait = backoffMs;
    for (let attempt = 1; ; attempt++) {
      const t = Math.floor(Date.now() / 1000);
      const result = await postWebhook({
        url: options.forwardTo,
        body: event.body,
        timeoutMs: options.timeoutMs ?? 10_000,
        // The target is the developer's own machine: that is the point of forwarding.
        allowPrivate: true,
        headers: {
          'user-agent': LISTEN_USER_AGENT,
          'content-type': 'application/json',
          'svc-event-id': id,
          'svc-event-type': event.type,
          ...deliverySignatureHeaders(secret, id, t, event.body),
        },
      });
      const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      const outcome = result.statusCode !== null ? String(result.statusCode) : (result.error ?? 'no answer');
      print(`${new Date().toISOString()}  ${event.type}  ${id}  [${event.id}]  -> ${outcome} (${result.durationMs} ms)`);
      if (ok) return;
      if (attempt >= attempts || signal.aborted || result.refused) {
        print(`  gave up on ${id} after ${attempt} attempt(s); the service's own deliveries are not affected`);
        return;
      }
      await sleep(wait, signal);
      wait = Math.min(wait * 2, MAX_BACKOFF_MS);
    }
  }

  while (!signal.aborted) {
    let res: Response;
    try {
      res = await fetch(streamUrl, {
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: 'text/event-stream',
          ...(lastId !== undefined ? { 'last-event-id': String(lastId) } : {}),
        },
        redirect: 'manual',
        signal,
      });
    } catch (err) {
      if (signal.aborted) return;
      res = Response.error();
      print(`cannot reach ${options.apiUrl} (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message})`);
    }
    if (res.status === 401 || res.status === 403 || res.status === 404 || (res.status >= 300 && res.status < 400)) {
      const text = await res.text();
      const e = toApiError(res, parseJson(text), text);
      throw new StreamRefused(`error ${e.status} ${e.code}: ${e.message}`);
    }
    if (res.ok && res.body) {
      failures = 0;
      // Only once the service has accepted the key and its scope: a refused key is shown no secret.
      if (!announced) {
        announced = true;
        print(`Your local webhook signing secret is ${secret} (verify the forwarded events with it)`);
        print(`Forwarding your events to ${options.forwardTo}; Ctrl-C to stop.`);
      }
      print(lastId === undefined ? 'Connected; waiting for events.' : `Connected; resuming after event ${lastId}.`);
      const queue: { id: string; type: string; body: string }[] = [];
      const parser = createParser({ onEvent: (e) => queue.push({ id: e.id ?? '', type: e.event ?? 'message', body: e.data }) });
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          while (queue.length > 0) {
            const event = queue.shift()!;
            await forward(event);
            if (/^\d+$/.test(event.id)) lastId = Number(event.id);
          }
        }
      } catch {
        // The connection dropped (or Ctrl-C): reconnect below, after the last event handled.
      }
      if (signal.aborted) return;
      print('The stream ended; reconnecting.');
    } else if (res.status !== 0) {
      await res.body?.cancel();
      print(`the service answered ${res.status}; reconnecting`);
    }
    failures++;
    if (failures > maxReconnects) throw new Error(`gave up after ${maxReconnects} failed connections in a row`);
    await sleep(Math.min(backoffMs * 2 ** (failures - 1), MAX_BACKOFF_MS), signal);
  }
}
