import postgres from 'postgres';
import { randomBase62 } from '../../src/domain/ids';

// Tests use the Postgres server of DATABASE_URL (default: the local one) and never its database.
const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEMPLATE_DATABASE = `svc_test_template_${process.pid}`;

export function databaseUrlFor(name: string): string {
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export const adminDatabaseUrl = () => databaseUrlFor('postgres');

/** Every clone of a run's template is named after it, so the run's teardown finds any left behind. */
export const clonePrefix = (template: string) => `${template}_c_`;

type TestDatabase = { url: string; drop: () => Promise<void> };

// The next file's database, cloned while this one's tests run: a fork takes file after file, and
// a clone is a few hundred milliseconds of waiting on Postgres that need not be each file's.
const spares = new Map<string, Promise<TestDatabase>>();

/**
 * A fresh, migrated database cloned from the run's template (made ahead, while the previous file
 * of this process ran); drop() removes it without making the caller wait. The clone a process made
 * for a file that never came, and a drop still under way when it exits, are dropped by the run's
 * teardown (dropClones).
 */
export async function createTestDatabase(template: string): Promise<TestDatabase> {
  const taken = spares.get(template) ?? cloneOf(template);
  const next = cloneOf(template);
  // Its failure is the next file's to see, when it takes it.
  next.catch(() => {});
  spares.set(template, next);
  return taken;
}

async function cloneOf(template: string): Promise<TestDatabase> {
  const name = `${clonePrefix(template)}${randomBase62(10).toLowerCase()}`;
  const sql = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`create database "${name}" template "${template}"`);
  } finally {
    await sql.end();
  }
  return {
    url: databaseUrlFor(name),
    drop: async () => {
      const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
      // Not awaited: the file's connections are closed, and nothing reads the database again.
      void admin
        .unsafe(`drop database if exists "${name}" with (force)`)
        .catch(() => {})
        .finally(() => admin.end());
    },
  };
}

/** The run's teardown: every clone of its template still there. */
export async function dropClones(template: string): Promise<void> {
  const sql = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const left = await sql<{ datname: string }[]>`select datname from pg_database where starts_with(datname, ${clonePrefix(template)})`;
    for (const { datname } of left) await sql.unsafe(`drop database if exists "${datname}" with (force)`);
  } finally {
    await sql.end();
  }
}
