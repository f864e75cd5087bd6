import type { DatabaseOrTransaction } from '../db/client';
import { insertRequestLog, listRequestLog, purgeRequestLog } from '../db/queries/api-request-log';
import { pathOf } from '../domain/request-path';

/** How long a merchant's request log keeps a call (purged by the API's sweep, sweep.ts). */
export const REQUEST_LOG_RETENTION_DAYS = 30;

/** What one v1 call leaves in its merchant's request log: never a body, a query, a header or a secret. */
export interface ApiCall {
  merchantId: string;
  keyId: string;
  method: string;
  /** The URL as requested; only its path is kept (a query may carry what the merchant did not mean to log). */
  url: string;
  statusCode: number;
  requestId: string;
}

const MAX_PATH = 300;

const rowOf = (call: ApiCall) => ({
  merchantId: call.merchantId,
  keyId: call.keyId,
  method: call.method,
  path: pathOf(call.url).slice(0, MAX_PATH),
  statusCode: call.statusCode,
  requestId: call.requestId,
});

/**
 * The request log's writer, off the request path and batched: calls wait in memory and go to
 * Postgres in one insert at most every `intervalMs` (or at `maxBatch` calls), so a lookup costs no
 * write of its own (one insert a call halved the merchant lookup's throughput). A log, not
 * money: a crashed process loses its last second of lines, and while Postgres is down at most
 * `maxPending` lines wait, the rest are dropped, never a request.
 */
export function requestLogWriter(
  db: DatabaseOrTransaction,
  onError: (err: unknown) => void,
  { intervalMs = 1000, maxBatch = 500, maxPending = 10_000 } = {},
) {
  let pending: ReturnType<typeof rowOf>[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = [];
    if (batch.length > 0) writing = writing.then(() => insertRequestLog(db, batch)).catch(onError);
    return writing;
  };
  return {
    record(call: ApiCall): void {
      if (pending.length >= maxPending) return;
      pending.push(rowOf(call));
      if (pending.length >= maxBatch) void flush();
      else timer ??= setTimeout(() => void flush(), intervalMs).unref();
    },
    /** Writes what waits (the API's close). */
    close: flush,
  };
}

/** The merchant's newest 100 calls, with the shown part of the key each used. */
export const merchantRequestLog = (db: DatabaseOrTransaction, merchantId: string) => listRequestLog(db, merchantId, 100);

export const purgeOldRequestLog = (db: DatabaseOrTransaction) => purgeRequestLog(db, REQUEST_LOG_RETENTION_DAYS);
