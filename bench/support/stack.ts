import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevChainWithTokens } from '../../tools/dev/dev-chain-with-tokens';
import postgres from 'postgres';
import { DEV_CHAIN_ID } from '../../tools/dev/dev-chain';
import { devChainVariables, type TestTokenAddresses } from '../../tools/dev/test-tokens';
import { prepareDatabase } from '../../src/db/migrate';
import { randomBase62 } from '../../src/domain/ids';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { findTemporalBinary } from '../../tools/temporal/cli-binary';
import { startDevServer } from '../../tools/temporal/dev-server';
import { freeServerPorts, startProductionServer } from '../../tools/temporal/server';

export const BENCH_ADMIN_TOKEN = `bench-admin-${randomBase62(24)}`;

export interface Stack {
  databaseUrl: string;
  temporalAddress: string;
  rpcUrl: string;
  tokens: TestTokenAddresses;
  /** The run's own Postgres databases (ours, and the production Temporal server's): whose backends its CPU figures count. */
  databases: string[];
  /** What every process of ours gets: the run's database, Temporal, chain and secrets. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

function databaseUrlFor(name: string): string {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * What the test harness starts (test/support/global-setup.ts), for one bench run: a Temporal server,
 * an anvil with the project's test tokens, a fresh migrated database. The dev server (in memory) by
 * default, never built here (that is `npm run temporal:install`'s job, minutes of CPU); with
 * `production`, the production server on this host's Postgres (`npm run temporal:server`'s, fresh
 * databases dropped at the end), which builds its binaries first if they are missing.
 */
export async function startStack(
  log: (line: string) => void,
  options: { temporal: 'dev' | 'production' | null; temporalConnections?: { main: number; visibility: number } },
): Promise<Stack> {
  const binary = options.temporal ? findTemporalBinary() : null;
  if (options.temporal && !binary) throw new Error('No Temporal CLI in .tools/bin or on PATH: run `npm run temporal:install` first.');
  const database = `svc_bench_${randomBase62(10).toLowerCase()}`;
  const databaseUrl = databaseUrlFor(database);
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    const [server, chain] = await Promise.all([
      // Without Temporal (figures that need none): the API's client is lazy and never connects.
      options.temporal === 'production'
        ? startProductionTemporal(database, stops, options.temporalConnections)
        : binary
          ? startDevServer({ binary, namespace: 'default' }).then((s) => (stops.push(() => s.stop()), s))
          : { address: '127.0.0.1:1' },
      startDevChainWithTokens().then((c) => (stops.push(() => c.stop()), c)),
      prepareDatabase(databaseUrl).then(() => stops.push(() => dropDatabase(database))),
    ]);
    log(`stack: temporal ${server.address}, anvil ${chain.rpcUrl}, database ${database}`);
    const env: Record<string, string> = {
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'default',
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ALLOW_PRIVATE_URLS: 'true',
      ALLOW_UNVERIFIED_NETWORKS: 'true',
      SANDBOX_ENABLED: 'true',
      LOG_LEVEL: 'warn',
      ...devChainVariables(chain.rpcUrl, DEV_CHAIN_ID, chain.tokens, chain.sweepers),
      SETTLEMENT_MNEMONIC: DEV_SETTLEMENT_MNEMONIC,
      // Payouts go in settlement runs: at the default 30 s, a round waiting for its payment.settled
      // would mostly wait for the next run. The bench pauses the schedules outside ours' turns
      // (support/settlement-clock.ts).
      PAYOUT_INTERVAL_SECONDS: '1',
      // The bench measures what one process can serve, with one key and one address: the per-key and
      // per-address limits would cap its figures at theirs.
      API_RATE_LIMIT_PER_SECOND: '100000',
      SIMPLE_API_ORDERS_PER_MINUTE: '10000',
    };
    const databases = [database, ...(options.temporal === 'production' ? [`${database}_temporal`, `${database}_temporal_visibility`] : [])];
    return { databaseUrl, temporalAddress: server.address, rpcUrl: chain.rpcUrl, tokens: chain.tokens, databases, env, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function startProductionTemporal(
  database: string,
  stops: (() => Promise<unknown>)[],
  connections: { main: number; visibility: number } | undefined,
): Promise<{ address: string }> {
  const databases = {
    postgresUrl: databaseUrlFor('postgres').replace(/\/postgres$/, ''),
    main: `${database}_temporal`,
    visibility: `${database}_temporal_visibility`,
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-temporal-'));
  stops.push(async () => {
    for (const name of [databases.main, databases.visibility]) await dropDatabase(name);
    rmSync(dir, { recursive: true, force: true });
  });
  const server = await startProductionServer({
    dir,
    databases,
    namespace: 'default',
    ports: await freeServerPorts(),
    log: () => {},
    ...(connections ? { connections } : {}),
  });
  stops.push(() => server.stop());
  return server;
}

async function dropDatabase(name: string) {
  const sql = postgres(databaseUrlFor('postgres'), { max: 1, onnotice: () => {} });
  await sql.unsafe(`drop database if exists "${name}" with (force)`).finally(() => sql.end());
}
