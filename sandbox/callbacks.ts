import { setTimeout as sleep } from 'node:timers/promises';
import { signatureHeader } from '../src/domain/signatures';
import type { CallbackAttempt, CallbackEvent } from './store';

// Signed callbacks to the merchant platform (our service). A real provider keeps these in a durable
// queue; the sandbox is a simulator, so retries run in this process and die with it.

/** Waits between attempts: 6 attempts over about 15 s. */
export const DEFAULT_RETRY_DELAYS_MS = [500, 1000, 2000, 4000, 8000];
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface CallbackSenderDeps {
  secret: string;
  /** The merchant platform's origin: the only place callbacks go (see callbackTargetRefusal). */
  allowedOrigin: string;
  fetch: typeof fetch;
  now: () => Date;
  retryDelaysMs: readonly number[];
  onFailedAttempt?: (event: CallbackEvent, attempt: CallbackAttempt) => void;
}

/**
 * Why the sandbox will not post callbacks to `url`, or null when it will. A provider account has one
 * callback destination, the platform it belongs to; posting wherever a request says would make the
 * sandbox a way to send signed requests into any network it can reach, private ones included.
 */
export function callbackTargetRefusal(url: string, allowedOrigin: string): string | null {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return 'callbackUrl is not an absolute URL';
  }
  return origin === allowedOrigin
    ? null
    : `callbackUrl must be on the merchant platform's service URL (${allowedOrigin}); the sandbox posts callbacks nowhere else`;
}

export function createCallbackSender({ secret, allowedOrigin, fetch, now, retryDelaysMs, onFailedAttempt }: CallbackSenderDeps) {
  // One chain per payment: its callbacks go out strictly in order, so a receiver never sees
  // "succeeded" before "processing" (the next waits until the previous is delivered or abandoned).
  const chains = new Map<string, Promise<void>>();
  const stopping = new AbortController();

  async function attempt(url: string, event: CallbackEvent): Promise<CallbackAttempt> {
    const started = Date.now();
    const at = now();
    // Checked at creation already; checked again here so that no code path can post elsewhere.
    const refusal = callbackTargetRefusal(url, allowedOrigin);
    if (refusal) return { at: at.toISOString(), statusCode: null, error: refusal, durationMs: 0, ok: false };
    // A fresh timestamp per attempt: receivers refuse old ones, and a retry may come minutes later.
    const signature = signatureHeader(secret, Math.floor(at.getTime() / 1000), event.body);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'sandbox-provider/1.0', 'sandbox-signature': signature },
        body: event.body,
        redirect: 'manual',
        signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      });
      await res.arrayBuffer().catch(() => undefined);
      const ok = res.status >= 200 && res.status < 300;
      return {
        at: at.toISOString(),
        statusCode: res.status,
        error: ok ? null : `HTTP ${res.status}`,
        durationMs: Date.now() - started,
        ok,
      };
    } catch (err) {
      const error = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      return { at: at.toISOString(), statusCode: null, error, durationMs: Date.now() - started, ok: false };
    }
  }

  async function deliver(url: string, event: CallbackEvent, onFirst: (a: CallbackAttempt) => void): Promise<void> {
    for (let i = 0; i <= retryDelaysMs.length && !stopping.signal.aborted; i++) {
      const result = await attempt(url, event);
      event.attempts.push(result);
      if (i === 0) onFirst(result);
      if (result.ok) {
        event.state = 'delivered';
        return;
      }
      onFailedAttempt?.(event, result);
      if (i < retryDelaysMs.length) await sleep(retryDelaysMs[i], undefined, { signal: stopping.signal }).catch(() => undefined);
    }
    event.state = 'abandoned';
    if (event.attempts.length === 0) {
      onFirst({ at: now().toISOString(), statusCode: null, error: 'sandbox stopped', durationMs: 0, ok: false });
    }
  }

  return {
    /** Queues the event behind the payment's earlier ones; resolves with its first attempt. */
    send(url: string, event: CallbackEvent): Promise<CallbackAttempt> {
      let firstAttempt!: (a: CallbackAttempt) => void;
      const first = new Promise<CallbackAttempt>((resolve) => (firstAttempt = resolve));
      const previous = chains.get(event.paymentId) ?? Promise.resolve();
      const chain = previous.then(() => deliver(url, event, firstAttempt));
      chains.set(event.paymentId, chain);
      void chain.then(() => {
        if (chains.get(event.paymentId) === chain) chains.delete(event.paymentId);
      });
      return first;
    },
    /** Stops retrying (pending events are abandoned) and waits for attempts in flight. */
    async stop() {
      stopping.abort();
      await Promise.allSettled([...chains.values()]);
    },
  };
}

export type CallbackSender = ReturnType<typeof createCallbackSender>;
