// The values of a failed SQL statement never reach a log or a workflow history. They
// travel in drizzle's DrizzleQueryError message ("Failed query: <sql>\nparams: <values>"), in its
// `params`, and in the postgres.js error it wraps (`parameters`, and `detail`, which repeats a
// failing row or key). These helpers cut them; the SQL text itself has placeholders only.

const PARAMS_MARKER = '\nparams:';

/** A message with drizzle's parameter list replaced. */
export function withoutSqlParams(message: string): string {
  const at = message.indexOf(PARAMS_MARKER);
  return at < 0 ? message : `${message.slice(0, at)}${PARAMS_MARKER} [not logged]`;
}

/** Whether an error carries the values of a failed statement, itself or in its causes. */
export function carriesSqlValues(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 5) return false;
  const e = err as Error & { params?: unknown; parameters?: unknown; detail?: unknown };
  if (err.message.includes(PARAMS_MARKER) || e.params !== undefined || e.parameters !== undefined || e.detail !== undefined) return true;
  return carriesSqlValues(err.cause, depth + 1);
}

/**
 * The same failure without the values: same name (Temporal takes it as the failure type), the
 * message without parameters plus the Postgres code and constraint, no cause.
 */
export function withoutSqlValues(err: Error): Error {
  const pg = findPostgresFields(err);
  const suffix = pg ? ` (postgres ${[pg.code, pg.constraint_name].filter(Boolean).join(' ')})` : '';
  const clean = new Error(withoutSqlParams(err.message) + suffix);
  clean.name = err.name;
  clean.stack = `${err.name}: ${clean.message}\n${(err.stack ?? '')
    .split('\n')
    .filter((l) => l.trimStart().startsWith('at '))
    .join('\n')}`;
  return clean;
}

function findPostgresFields(err: unknown, depth = 0): { code?: string; constraint_name?: string } | null {
  if (!(err instanceof Error) || depth > 5) return null;
  const e = err as Error & { code?: unknown; constraint_name?: unknown };
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
    return { code: e.code, ...(typeof e.constraint_name === 'string' ? { constraint_name: e.constraint_name } : {}) };
  }
  return findPostgresFields(err.cause, depth + 1);
}

/** The Postgres SQLSTATE of a failed statement (drizzle wraps postgres.js's error as its cause), if any. */
export const postgresCode = (err: unknown): string | undefined => findPostgresFields(err)?.code;

/** The constraint a unique violation (23505) broke, if `err` is one; undefined otherwise. */
export function violatedUniqueConstraint(err: unknown): string | undefined {
  const pg = findPostgresFields(err);
  return pg?.code === '23505' ? (pg.constraint_name ?? '') : undefined;
}
