import type { DatabaseOrTransaction } from '../db/client';
import { insertRequestLog, listRequestLog, purgeRequestLog } from '../db/queries/api-request-log';

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

export async function recordApiCall(db: DatabaseOrTransaction, call: ApiCall): Promise<void> {
  const path = call.url.split('?', 1)[0]!.slice(0, MAX_PATH);
  await insertRequestLog(db, {
    merchantId: call.merchantId,
    keyId: call.keyId,
    method: call.method,
    path,
    statusCode: call.statusCode,
    requestId: call.requestId,
  });
}

/** The merchant's newest 100 calls, with the shown part of the key each used. */
export const merchantRequestLog = (db: DatabaseOrTransaction, merchantId: string) => listRequestLog(db, merchantId, 100);

export const purgeOldRequestLog = (db: DatabaseOrTransaction) => purgeRequestLog(db, REQUEST_LOG_RETENTION_DAYS);
