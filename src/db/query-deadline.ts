import type postgres from 'postgres';

/**
 * A query that got no answer within its deadline. Postgres may still run it: the API answers 503
 * and the caller retries (with its Idempotency-Key where the request changes anything).
 */
export class QueryDeadlineError extends Error {
  readonly code = 'QUERY_DEADLINE';
  constructor(ms: number) {
    super(`Postgres did not answer within ${ms} ms`);
    this.name = 'QueryDeadlineError';
  }
}

/**
 * The query's outcome, or QueryDeadlineError after `ms`. Written out rather than as Promise.race of
 * the query and a timer's promise with a `finally`: every query passes here, and those four promises
 * cost about twice the time of this one.
 */
function race<T>(promise: PromiseLike<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new QueryDeadlineError(ms)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: Error) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * Why this exists: Postgres's statement_timeout is enforced by the server, and connect_timeout only
 * covers the handshake. A Postgres host that hangs after the pool connected (a paused VM, a network
 * partition without a reset) answers nothing, and a query waits for TCP keepalive to give up: the
 * 46–60 s requests. This puts a client-side deadline on every query drizzle sends
 * (drizzle calls `unsafe`, then maybe `.values()`, then awaits) and on every transaction.
 */
export function withQueryDeadline(sql: postgres.Sql, ms: number): postgres.Sql {
  const wrapPending = <T extends object>(pending: T): T =>
    new Proxy(pending, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop === 'then') {
          return (onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) =>
            race(target as unknown as PromiseLike<unknown>, ms).then(onFulfilled, onRejected);
        }
        if (typeof value !== 'function') return value;
        // Builder methods (`values()`, `raw()`, …) return the query itself: keep it wrapped.
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? wrapPending(target) : result;
        };
      },
    });

  return new Proxy(sql, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === 'unsafe') {
        return (...args: Parameters<postgres.Sql['unsafe']>) => wrapPending(target.unsafe(...args));
      }
      if (prop === 'begin') {
        // The whole transaction, waiting for a connection included; its statements each have one too.
        return (...args: unknown[]) => {
          const callback = args.at(-1) as (tx: postgres.Sql) => unknown;
          const rest = args.slice(0, -1);
          const begin = value as (...a: unknown[]) => Promise<unknown>;
          return race(begin.apply(target, [...rest, (tx: postgres.Sql) => callback(withQueryDeadline(tx, ms))]), ms);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    apply(target, thisArg, args) {
      return wrapPending(Reflect.apply(target as unknown as (...a: unknown[]) => object, thisArg, args));
    },
  });
}
