import type postgres from 'postgres';

/**
 * Why this exists: drizzle runs every query it did not name with `prepare: false`, and
 * postgres.js then sends an unnamed statement with parameters as Parse + Describe, waits for the
 * parameter types, and only then sends Bind + Execute: two round trips, and Postgres parses and plans
 * the statement each time. Named statements are parsed once per connection (postgres.js keys them by
 * their text and parameter types) and then cost one round trip. drizzle only names a query built with
 * `.prepare(name)`; this turns it on for every query drizzle sends, in transactions too.
 *
 * Safe here because every statement text is fixed by the code (values are always parameters; the one
 * `sql.raw` is a constant), so the per-connection cache holds one entry per query shape; postgres.js
 * re-prepares a statement a migration invalidated. It would not be behind a transaction-mode pooler
 * (PgBouncer before 1.21), which this service does not use.
 */
export function withPreparedStatements(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === 'unsafe') {
        return (query: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(query, parameters, { ...options, prepare: true });
      }
      if (prop === 'begin' || prop === 'savepoint') {
        // The transaction's own connection: its statements named the same way.
        return (...args: unknown[]) => {
          const callback = args.at(-1) as (tx: postgres.Sql) => unknown;
          const open = value as (...a: unknown[]) => Promise<unknown>;
          return open.apply(target, [...args.slice(0, -1), (tx: postgres.Sql) => callback(withPreparedStatements(tx))]);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
