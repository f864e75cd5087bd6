import { bigserial, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// A merchant's own recent calls to the v1 API, for the dashboard's request log: method, path (no
// query), status, request id and the key used; never a body, a header or a secret. Kept
// REQUEST_LOG_RETENTION_DAYS (src/accounts/request-log.ts), purged by the API's sweep.
export const apiRequestLog = pgTable(
  'api_request_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // No foreign keys: a log line's insert never waits on a lock of the merchant's or key's row.
    merchantId: text('merchant_id').notNull(),
    keyId: text('key_id').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    statusCode: integer('status_code').notNull(),
    requestId: text('request_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('api_request_log_merchant_idx').on(t.merchantId, t.createdAt), index('api_request_log_created_idx').on(t.createdAt)],
);
