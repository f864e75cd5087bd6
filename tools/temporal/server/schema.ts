import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const run = promisify(execFile);

export interface ServerDatabases {
  /** A Postgres URL without a database: the server's role, host and port. */
  postgresUrl: string;
  /** The two databases Temporal keeps: its state, and visibility (what the UI searches). */
  main: string;
  visibility: string;
}

const SCHEMAS = [
  { key: 'main', dir: 'temporal' },
  { key: 'visibility', dir: 'visibility' },
] as const;

/**
 * Creates the databases when missing and brings both schemas to the module's latest version with
 * temporal-sql-tool, as the official images' auto-setup does. Re-running changes nothing:
 * setup-schema runs only on a database without Temporal's version table, and update-schema applies
 * only versions newer than the one recorded.
 */
export async function setupSchemas(options: {
  sqlTool: string;
  moduleDir: string;
  databases: ServerDatabases;
  log?: (line: string) => void;
}) {
  const { databases, sqlTool, log = console.log } = options;
  const url = new URL(databases.postgresUrl);
  const admin = postgres(withDatabase(databases.postgresUrl, 'postgres'), { max: 1, onnotice: () => {} });
  try {
    for (const { key } of SCHEMAS) {
      const name = databases[key];
      const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
      if (!exists) await admin.unsafe(`create database "${name.replace(/"/g, '""')}"`);
    }
  } finally {
    await admin.end();
  }
  const connection = [
    '--plugin',
    'postgres12',
    '--ep',
    url.hostname,
    '-p',
    url.port || '5432',
    '-u',
    decodeURIComponent(url.username || 'postgres'),
  ];
  const env = { ...process.env, SQL_PASSWORD: decodeURIComponent(url.password) };
  for (const { key, dir } of SCHEMAS) {
    const name = databases[key];
    const args = [...connection, '--db', name];
    if (!(await hasVersionTable(databases.postgresUrl, name))) {
      log(`Setting up the Temporal ${dir} schema in database ${name}…`);
      await run(sqlTool, [...args, 'setup-schema', '-v', '0.0'], { env });
    }
    const versioned = path.join(options.moduleDir, 'schema', 'postgresql', 'v12', dir, 'versioned');
    await run(sqlTool, [...args, 'update-schema', '-d', versioned], { env });
  }
}

async function hasVersionTable(postgresUrl: string, database: string): Promise<boolean> {
  const sql = postgres(withDatabase(postgresUrl, database), { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select to_regclass('public.schema_version') is not null as present`;
    return row?.present === true;
  } finally {
    await sql.end();
  }
}

export function withDatabase(postgresUrl: string, database: string): string {
  const url = new URL(postgresUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
