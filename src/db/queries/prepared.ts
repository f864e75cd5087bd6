import { sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';

// Statements on hot paths (authentication, lookups, a payment's activities) are built once per
// process and sent as prepared statements (postgres.js `prepare: true`, per connection): no SQL
// building in drizzle (150-250 µs for a wide row) and no parse/plan in Postgres per call. A query is
// built once, by name, and run on the handle it is given: the database's pool, or an open
// transaction's connection. drizzle's prepared query runs on the postgres.js client it holds
// (`client`), the client of the session that built it; a handle's own is its session's (`session.client`),
// so the query built once is run as a view of it holding the handle's client. Both are drizzle's
// internals: test/db/prepared.test.ts fails if either moves.

interface BoundQuery {
  client: unknown;
}

const built = new Map<string, BoundQuery>();

function clientOf(db: DatabaseOrTransaction): unknown {
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  if (!client) throw new Error('preparedFor: not a drizzle postgres-js database or transaction');
  return client;
}

/**
 * The query `name` (built by `build` on first use, with placeholders for its values), to run on `db`.
 * One name is one statement text: a query whose shape depends on its input gets a name per shape.
 */
export function preparedFor<T extends object>(db: DatabaseOrTransaction, name: string, build: () => T): T {
  let query = built.get(name);
  if (!query) {
    query = build() as unknown as BoundQuery;
    if (!('client' in query)) throw new Error(`preparedFor: ${name} is not a drizzle prepared query`);
    built.set(name, query);
  }
  const client = clientOf(db);
  if (query.client === client) return query as unknown as T;
  return Object.create(query, { client: { value: client } }) as T;
}

/**
 * A placeholder where drizzle's types ask for a value (an update's `.set()`): at run time drizzle binds
 * it as the column's parameter, its encoder applied to the value given at execution, as in an insert.
 */
export const placeholderValue = (name: string): never => sql.placeholder(name) as never;

/**
 * Rows to insert with a prepared statement: each value a placeholder named after its column and row,
 * the rows' shape (which columns each gives; an undefined one is left to its default) to name the
 * statement by, and the values to run it with.
 */
export function placeholderRows<R extends object>(
  rows: R[],
  /** Put before every placeholder's name, for two inserts in one statement. */
  prefix = '',
): { shape: string; placeholders: R[]; values: Record<string, unknown> } {
  const columns = rows.map((row) =>
    Object.entries(row)
      .filter(([, value]) => value !== undefined)
      .map(([column]) => column)
      .sort(),
  );
  return {
    shape: columns.map((names) => names.join(',')).join(';'),
    placeholders: columns.map((names, i) => Object.fromEntries(names.map((c) => [c, sql.placeholder(`${prefix}${c}_${i}`)])) as R),
    values: Object.fromEntries(
      rows.flatMap((row, i) => columns[i]!.map((c) => [`${prefix}${c}_${i}`, (row as Record<string, unknown>)[c]])),
    ),
  };
}
