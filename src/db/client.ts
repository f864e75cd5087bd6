import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { withPreparedStatements } from './prepared-statements';
import { withQueryDeadline } from './query-deadline';
import * as schema from './schema';

export type Database = PostgresJsDatabase<typeof schema>;
/** A query function takes either the database or an open transaction. */
export type DatabaseOrTransaction = Database | Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DbHandle {
  db: Database;
  sql: postgres.Sql;
  close(): Promise<void>;
}

/** The API's bound on one query (a request answers 503 within ~5 s when Postgres hangs). */
export const API_QUERY_DEADLINE_MS = 4000;
/** The API's statement_timeout: a customer or a merchant's server is waiting. */
export const API_STATEMENT_TIMEOUT_MS = 5000;

export interface DbOptions {
  max?: number;
  /** Server-side cap on one statement (lock waits included), so a slow query frees its connection (default 30 s; the API 5 s). */
  statementTimeoutMs?: number;
  /** Client-side cap on one query or transaction; the API sets it, the worker relies on Temporal's activity timeouts. */
  queryDeadlineMs?: number;
  /** What pg_stat_activity shows for these connections, so an operator tells the API's from the worker's. */
  applicationName?: string;
}

export function createDb(url: string, options: DbOptions = {}): DbHandle {
  const raw = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // Without this a dead Postgres makes a request hang until the client gives up; 3 s leaves room
    // under the 5 s a request may take.
    connect_timeout: 3,
    // Idle connections are dropped, so a pool does not keep sockets to a Postgres that went away.
    idle_timeout: 30,
    connection: {
      statement_timeout: options.statementTimeoutMs ?? 30_000,
      ...(options.applicationName ? { application_name: options.applicationName } : {}),
    },
  });
  shareArrayTypes(raw);
  const sql = options.queryDeadlineMs ? withQueryDeadline(raw, options.queryDeadlineMs) : raw;
  const db = drizzle(withPreparedStatements(sql), { schema });
  return { db, sql, close: () => raw.end({ timeout: 5 }) };
}

/**
 * postgres.js reads the database's array types on every connection it opens, into parsers and
 * serializers its pool's connections share: a catalog query that costs a new backend about 10 ms of
 * planning and running, paid again by each connection a pool opens, reopens after its idle timeout,
 * or adds under load. The pool's first connection reads them; once it has, later connections skip
 * the read. Should that first query fail (no database yet), every connection keeps reading them.
 */
function shareArrayTypes(raw: postgres.Sql): void {
  raw`select 1`.then(
    () => {
      raw.options.fetch_types = false;
    },
    () => {},
  );
}
