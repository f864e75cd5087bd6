import { expect } from 'vitest';

/** One server-sent event as a browser's EventSource would hand it over (comments kept apart). */
export interface StreamEvent {
  event: string;
  data: string;
}

/**
 * A text/event-stream read over a real socket: `next` waits for the first event after the ones
 * already taken that satisfies `match`, so a test asserts what arrives and in what order.
 */
export async function openEventStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: StreamEvent[] = [];
  let comments = 0;
  const commentText: string[] = [];
  let taken = 0;
  let buffer = '';
  let ended = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const lines = block.split('\n');
            if (lines.every((l) => l.startsWith(':'))) {
              comments++;
              commentText.push(...lines.map((l) => l.slice(1).trim()));
            }
            const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
            const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
            if (data.length > 0) events.push({ event, data: data.join('\n') });
          }
          wake();
        }
      } catch {
        // Aborted by close().
      }
      ended = true;
      wake();
    })();
  }

  return {
    status: res.status,
    headers: res.headers,
    /** The next `status` event's data whose JSON satisfies `match`, within `timeoutMs`. */
    async next<T = Record<string, unknown>>(match: (data: T) => boolean, timeoutMs = 10_000, label = 'event'): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (taken < events.length) {
          const data = JSON.parse(events[taken++]!.data) as T;
          if (match(data)) return data;
        }
        if (ended) expect.fail(`the stream ended before ${label}`);
        const left = deadline - Date.now();
        if (left <= 0) expect.fail(`timed out waiting for ${label}; events: ${events.map((e) => e.data).join(' | ')}`);
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, left);
          waiters.add(done);
        });
      }
    },
    comments: () => comments,
    /** The text of every comment line so far, in order. */
    commentLines: () => [...commentText],
    ended: () => ended,
    /** Waits until the server ends the stream, within `timeoutMs`; the milliseconds that took. */
    async untilEnded(timeoutMs: number): Promise<number> {
      const start = Date.now();
      while (!ended) {
        if (Date.now() - start > timeoutMs) expect.fail(`the stream was still open after ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, 50);
          waiters.add(done);
        });
      }
      return Date.now() - start;
    },
    /** Waits until the stream has delivered at least `n` comment lines (heartbeats). */
    async commentsReach(n: number, timeoutMs = 5000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (comments < n) {
        if (Date.now() > deadline || ended) expect.fail(`expected ${n} heartbeats, saw ${comments}`);
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done);
            resolve();
          };
          waiters.add(done);
          setTimeout(done, 100);
        });
      }
    },
    close: () => controller.abort(),
  };
}
