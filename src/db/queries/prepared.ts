import { Column, getTableName, is, SQL, sql, Subquery } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';

// Statements on hot paths (authentication, lookups, a payment's activities) are built once per
// process and sent as prepared statements (postgres.js `prepare: true`, per connection): no SQL
// building in drizzle (150-250 µs for a wide row) and no parse/plan in Postgres per call. A query is
// built once, by name, and run on the handle it is given: the database's pool, or an open
// transaction's connection. drizzle's prepared query runs on the postgres.js client it holds
// (`client`), the client of the session that built it; a handle's own is its session's (`session.client`),
// so the query built once is run as a view of it holding the handle's client. Its rows are mapped
// by a mapper decided once (attachRowMapper). All three are drizzle's internals:
// test/db/prepared.test.ts fails if one moves.

interface BoundQuery {
  client: unknown;
  /** The selected or returned columns, each with where it goes in the row object. */
  fields?: { path: string[]; field: unknown }[];
  /** Per table of the query, false when a left join may leave it out (drizzle then gives null for it). */
  joinsNotNullableMap?: Record<string, boolean>;
  /** When set, drizzle hands it the rows as arrays in place of its own mapping. */
  customResultMapper?: (rows: unknown[][]) => unknown;
}

interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}

/** The decoder drizzle's own mapping (mapResultRow) picks for a selected field. */
function decoderOf(field: unknown): Decoder {
  type Decoded = { decoder: Decoder };
  if (is(field, Column)) return field;
  if (is(field, SQL)) return (field as unknown as Decoded).decoder;
  if (is(field, Subquery)) return (field as unknown as { _: { sql: Decoded } })._.sql.decoder;
  return (field as { sql: Decoded }).sql.decoder;
}

/**
 * drizzle maps each row by walking its fields and asking each which kind of field it is: 16-20 µs for
 * a session's 43 columns, where the same mapping decided once per statement takes 7-9 µs (measured
 * on one machine; every lookup and most activities read a session). Only where drizzle's does no
 * more: no columns gathered under a name from a table a left join may leave out (drizzle turns such
 * an object into null when all its columns are) and no deeper nesting than that.
 * test/db/prepared.test.ts checks that the two give the same rows.
 */
function attachRowMapper(query: BoundQuery): void {
  const fields = query.fields;
  if (!fields || query.customResultMapper) return;
  if (fields.some(({ path }) => path.length < 1 || path.length > 2)) return;
  const nullable = query.joinsNotNullableMap ?? {};
  const leftOut = ({ path, field }: { path: string[]; field: unknown }) =>
    path.length === 2 && is(field, Column) && nullable[getTableName(field.table)] === false;
  if (fields.some(leftOut)) return;
  const columns = fields.map(({ path, field }) => ({ outer: path[0]!, inner: path[1], decoder: decoderOf(field) }));
  const mapRow = (raw: unknown[]) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const { outer, inner, decoder } = columns[i]!;
      const value = raw[i] === null ? null : decoder.mapFromDriverValue(raw[i]);
      if (inner === undefined) row[outer] = value;
      else ((row[outer] ??= {}) as Record<string, unknown>)[inner] = value;
    }
    return row;
  };
  query.customResultMapper = (rows) => rows.map(mapRow);
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
    attachRowMapper(query);
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
