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

/** A fresh, migrated database cloned from the run's template; drop() removes it. */
export async function createTestDatabase(template: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `svc_test_${randomBase62(10).toLowerCase()}`;
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
      try {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}
