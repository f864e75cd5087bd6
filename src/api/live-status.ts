import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { AppError } from '../domain/errors';
import { startEventStream } from './event-stream';

// Live status for the customers' pages. One poller per API process
// and kind of thing watched reads, once a tick, every session (link, order) some open stream watches, in one batch of reads from Postgres,
// and hands each stream the status only when it changed. Status lives in Postgres, written by the
// workers; polling it here needs no trigger, no migration and no connection of its own, and its cost
// follows the number of watched sessions, not of streams (ten tabs on one session are one read).

export interface LiveStatusOptions<T> {
  /** Reads the statuses of the sessions (absent: not found). */
  read: (ids: readonly string[]) => Promise<Map<string, T>>;
  /** How often the watched sessions are read (default 1 s: a change reaches a tab within about 2 s). */
  intervalMs?: number;
  onError?: (err: unknown) => void;
}

export type StatusListener<T> = (status: T | null) => void;

export interface LiveStatusHub<T> {
  /**
   * Calls `listener` with each new status of the session (null once it is not found); returns the
   * unsubscribe. `current` is the status the caller just read and sent itself, so it is not sent again.
   */
  watch(id: string, listener: StatusListener<T>, current?: T): () => void;
  /** Sessions watched now (for tests and metrics). */
  watched(): number;
  stop(): void;
}

export function createLiveStatusHub<T>(options: LiveStatusOptions<T>): LiveStatusHub<T> {
  const interval = options.intervalMs ?? 1000;
  const watchers = new Map<string, { listeners: Set<StatusListener<T>>; last: string | undefined }>();
  let timer: NodeJS.Timeout | null = null;
  let reading = false;
  let stopped = false;

  async function tick() {
    // One read at a time: a slow Postgres delays the next tick rather than piling reads up.
    if (reading || watchers.size === 0) return;
    reading = true;
    try {
      const statuses = await options.read([...watchers.keys()]);
      for (const [id, w] of watchers) {
        const status = statuses.get(id) ?? null;
        const text = JSON.stringify(status);
        if (text === w.last) continue;
        w.last = text;
        for (const listener of w.listeners) listener(status);
      }
    } catch (err) {
      options.onError?.(err);
    } finally {
      reading = false;
    }
  }

  return {
    watch(id, listener, current) {
      let w = watchers.get(id);
      if (!w) watchers.set(id, (w = { listeners: new Set(), last: current === undefined ? undefined : JSON.stringify(current) }));
      w.listeners.add(listener);
      if (!timer && !stopped) {
        timer = setInterval(() => void tick(), interval);
        timer.unref();
      }
      return () => {
        const current = watchers.get(id);
        if (!current) return;
        current.listeners.delete(listener);
        if (current.listeners.size === 0) watchers.delete(id);
        if (watchers.size === 0 && timer) {
          clearInterval(timer);
          timer = null;
        }
      };
    },
    watched: () => watchers.size,
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      watchers.clear();
    },
  };
}

export interface LiveStatusSettings {
  /** How often the watched ids are read from Postgres (default 1000 ms). */
  intervalMs?: number;
  /** A comment line this often keeps proxies from closing a quiet stream (default 15 s). */
  heartbeatMs?: number;
  /** Open streams one client address may hold, over every kind (default 8; a customer's tabs, not a crawler's thousands). */
  maxStreamsPerClient?: number;
  /** Open streams the process holds at most (default 5000). */
  maxStreams?: number;
  /** A stream ends after this long and the browser's EventSource opens a fresh one (default 10 min), so none is held forever. */
  maxStreamMs?: number;
}

/** One kind of thing a page watches (a checkout session, a payment link, a simple order), with its own poller. */
export interface StatusTopic<T> {
  /** The status now (undefined: not found), for the first event and the 404. */
  read(id: string): Promise<T | undefined>;
  /** Streams `first`, then every change, as `status` events on the hijacked reply. Throws the limits' AppErrors before hijacking. */
  serve(request: FastifyRequest, reply: FastifyReply, id: string, first: T): void;
}

export interface StatusStreams {
  topic<T>(read: (ids: readonly string[]) => Promise<Map<string, T>>): StatusTopic<T>;
  /** Ends every stream and poller (before the server stops taking connections, or closing would wait for them). */
  close(): void;
}

// Sent once per stream: how long a browser waits before it reconnects after the stream ends.
const RECONNECT_MS = 2000;

/**
 * The server-sent event streams of every customer page, sharing one set of limits: a client address's
 * tabs count together whatever they watch. Each topic has one poller (createLiveStatusHub).
 */
export function createStatusStreams(settings: LiveStatusSettings, onError: (err: unknown) => void): StatusStreams {
  const heartbeatMs = settings.heartbeatMs ?? 15_000;
  const perClient = settings.maxStreamsPerClient ?? 8;
  const maxStreams = settings.maxStreams ?? 5000;
  const maxStreamMs = settings.maxStreamMs ?? 10 * 60_000;
  const byClient = new Map<string, number>();
  const open = new Set<ServerResponse>();
  const hubs: { stop(): void }[] = [];

  return {
    topic<T>(read: (ids: readonly string[]) => Promise<Map<string, T>>): StatusTopic<T> {
      const hub = createLiveStatusHub<T>({ read, intervalMs: settings.intervalMs, onError });
      hubs.push(hub);
      return {
        read: async (id) => (await read([id])).get(id),
        serve(request, reply, id, first) {
          const client = request.ip;
          if ((byClient.get(client) ?? 0) >= perClient) {
            throw new AppError('RateLimited', `At most ${perClient} status streams may be open from one address.`, {
              retryAfterSeconds: 10,
            });
          }
          if (open.size >= maxStreams) throw new AppError('Unavailable', 'Too many status streams are open; try again in a moment.');

          byClient.set(client, (byClient.get(client) ?? 0) + 1);
          const res = startEventStream(request, reply, RECONNECT_MS);
          open.add(res);
          const send = (status: T) => res.write(`event: status\ndata: ${JSON.stringify(status)}\n\n`);
          send(first);

          let ended = false;
          const end = () => {
            if (ended) return;
            ended = true;
            unwatch();
            clearInterval(heartbeat);
            clearTimeout(lifetime);
            open.delete(res);
            const left = (byClient.get(client) ?? 1) - 1;
            if (left > 0) byClient.set(client, left);
            else byClient.delete(client);
            if (!res.writableEnded) res.end();
          };
          const unwatch = hub.watch(
            id,
            (status) => {
              if (status === null) end();
              else send(status);
            },
            first,
          );
          const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
          const lifetime = setTimeout(end, maxStreamMs);
          request.raw.on('close', end);
          res.on('close', end);
          res.on('error', end);
        },
      };
    },
    close() {
      for (const hub of hubs) hub.stop();
      for (const res of open) res.end();
    },
  };
}
