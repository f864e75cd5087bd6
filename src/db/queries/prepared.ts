import type { DatabaseOrTransaction } from '../client';

// Statements on the hot read paths (authentication, lookups) are built once per database handle
// and sent as prepared statements (postgres.js `prepare: true`, per connection): no SQL building
// in drizzle and no parse/plan in Postgres per request. A transaction gets its own, short-lived.
const cache = new WeakMap<object, Map<string, unknown>>();

export function preparedFor<T>(db: DatabaseOrTransaction, name: string, build: () => T): T {
  let byName = cache.get(db);
  if (!byName) {
    byName = new Map();
    cache.set(db, byName);
  }
  if (!byName.has(name)) byName.set(name, build());
  return byName.get(name) as T;
}
