import type { CustomerStatus } from '../payments/customer-status';

// Live status for the customers' pages (decisions §14, issue 30 item 2). One poller per API process
// reads, once a tick, every session some open stream watches, in one batch of reads from Postgres,
// and hands each stream the status only when it changed. Status lives in Postgres, written by the
// workers; polling it here needs no trigger, no migration and no connection of its own, and its cost
// follows the number of watched sessions, not of streams (ten tabs on one session are one read).

export interface LiveStatusOptions {
  /** Reads the statuses of the sessions (absent: not found). */
  read: (ids: readonly string[]) => Promise<Map<string, CustomerStatus>>;
  /** How often the watched sessions are read (default 1 s: a change reaches a tab within about 2 s). */
  intervalMs?: number;
  onError?: (err: unknown) => void;
}

export type StatusListener = (status: CustomerStatus | null) => void;

export interface LiveStatusHub {
  /**
   * Calls `listener` with each new status of the session (null once it is not found); returns the
   * unsubscribe. `current` is the status the caller just read and sent itself, so it is not sent again.
   */
  watch(id: string, listener: StatusListener, current?: CustomerStatus): () => void;
  /** Sessions watched now (for tests and metrics). */
  watched(): number;
  stop(): void;
}

export function createLiveStatusHub(options: LiveStatusOptions): LiveStatusHub {
  const interval = options.intervalMs ?? 1000;
  const watchers = new Map<string, { listeners: Set<StatusListener>; last: string | undefined }>();
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
