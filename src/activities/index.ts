import type { Database } from '../db/client';

export interface ActivityDeps {
  db: Database;
  now: () => Date;
}

/**
 * Every side effect a workflow needs, built from its dependencies so tests hand in real Postgres.
 * Each activity is idempotent: a retry or a replay writes nothing twice.
 */
export function createActivities(_deps: ActivityDeps) {
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
