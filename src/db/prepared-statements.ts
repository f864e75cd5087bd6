import type postgres from 'postgres';

/**
 * postgres.js sends a query without parameters as a simple Query, which Postgres parses and plans on
 * every call: the statements that write their constants into the text to be planned once (the
 * settlement runs') would be planned each time. One statement goes as a named one like the rest; a
 * text with a `;` may hold several (a migration's), which only the simple protocol runs.
 */
function isSimple(query: string, parameters: readonly unknown[] | undefined): boolean {
  return (parameters?.length ?? 0) === 0 && query.includes(';');
}

/**
 * Why this exists: drizzle runs every query it did not name with `prepare: false`, and
 * postgres.js then sends an unnamed statement with parameters as Parse + Describe, waits for the
 * parameter types, and only then sends Bind + Execute: two round trips, and Postgres parses and plans
 * the statement each time. Named statements are parsed once per connection (postgres.js keys them by
 * their text and parameter types) and then cost one round trip. drizzle only names a query built with
 * `.prepare(name)`; this turns it on for every query drizzle sends, in transactions too.
 *
 * Safe here because every statement text is fixed by the code (values are parameters, but for the
 * settlement statements' network names and whole numbers from the configuration, db/queries/settlement.ts),
 * so the per-connection cache holds a few entries per query shape; postgres.js
 * re-prepares a statement a migration invalidated. It would not be behind a transaction-mode pooler
 * (PgBouncer before 1.21), which this service does not use.
 */
export function withPreparedStatements(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === 'unsafe') {
        return (query: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) => {
          // `simple` is an option of postgres.js's unsafe() its types leave out.
          const named: postgres.UnsafeQueryOptions & { simple: boolean } = {
            simple: isSimple(query, parameters),
            ...options,
            prepare: true,
          };
          return target.unsafe(query, parameters, named);
        };
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
