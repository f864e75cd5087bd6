import http from 'node:http';
import { freePort } from './processes';

export interface Arrival {
  at: number;
  event: string;
  sessionId: string;
  deliveryId: string | null;
}

/**
 * The merchant's webhook endpoint: answers 200 to every POST and notes when each event arrived.
 * `waitFor` resolves when the given sessions' `payment.completed` all arrived.
 */
export async function startReceiver() {
  const arrivals: Arrival[] = [];
  const waiters: { done: () => boolean; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end('ok');
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event?: string; sessionId?: string };
        const delivery = req.headers['svc-delivery-id'];
        arrivals.push({
          at: performance.now(),
          event: body.event ?? '',
          sessionId: body.sessionId ?? '',
          deliveryId: typeof delivery === 'string' ? delivery : null,
        });
      } catch {
        arrivals.push({ at: performance.now(), event: 'unparsed', sessionId: '', deliveryId: null });
      }
      for (const w of [...waiters]) {
        if (w.done()) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const completedAt = (sessionId: string) => arrivals.find((a) => a.sessionId === sessionId && a.event === 'payment.completed')?.at;
  // A payment that failed (e.g. the dev chain reverted the sandbox's transfer) is over too: counted apart.
  const finishedAt = (sessionId: string) =>
    arrivals.find((a) => a.sessionId === sessionId && (a.event === 'payment.completed' || a.event === 'payment.failed'))?.at;
  function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`receiver: ${what} not seen within ${timeoutMs} ms (last arrivals: ${JSON.stringify(arrivals.slice(-3))})`)),
        timeoutMs,
      );
      waiters.push({ done, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    arrivals,
    completedAt,
    finishedAt,
    /** Resolves once every session's payment.completed (or payment.failed) has arrived. */
    completions: (ids: readonly string[], timeoutMs: number) =>
      until(() => ids.every((id) => finishedAt(id) !== undefined), timeoutMs, `payment.completed of ${ids.length} payments`),
    /** Resolves once every session's payment.settled (its payout confirmed) has arrived, or the session failed. */
    settlements: (ids: readonly string[], timeoutMs: number) =>
      until(
        () =>
          ids.every((id) => arrivals.some((a) => a.sessionId === id && (a.event === 'payment.settled' || a.event === 'payment.failed'))),
        timeoutMs,
        `payment.settled of ${ids.length} payments`,
      ),
    /** Resolves once `count` POSTs arrived after index `from`. */
    posts: (from: number, count: number, timeoutMs: number) => until(() => arrivals.length - from >= count, timeoutMs, `${count} POSTs`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
