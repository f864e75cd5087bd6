import { randomBytes } from 'node:crypto';
import { startDevChainWithTokens } from '../../src/chains/dev-chain-with-tokens';
import postgres from 'postgres';
import { DEV_CHAIN_ID } from '../../src/chains/dev-chain';
import { devChainVariables, type TestTokenAddresses } from '../../src/chains/test-tokens';
import { prepareDatabase } from '../../src/db/migrate';
import { randomBase62 } from '../../src/domain/ids';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { findTemporalBinary } from '../../src/temporal/cli-binary';
import { startDevServer } from '../../src/temporal/dev-server';

export const BENCH_ADMIN_TOKEN = `bench-admin-${randomBase62(24)}`;

export interface Stack {
  databaseUrl: string;
  temporalAddress: string;
  rpcUrl: string;
  tokens: TestTokenAddresses;
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
 * What the test harness starts (test/support/global-setup.ts), for one bench run: a Temporal dev
 * server (in memory), an anvil with the project's test tokens, a fresh migrated database. Never
 * builds the Temporal CLI (that is `npm run temporal:install`'s job, minutes of CPU).
 */
export async function startStack(log: (line: string) => void, options: { temporal: boolean }): Promise<Stack> {
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
      binary ? startDevServer({ binary, namespace: 'default' }).then((s) => (stops.push(() => s.stop()), s)) : { address: '127.0.0.1:1' },
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
      ...devChainVariables(chain.rpcUrl, DEV_CHAIN_ID, chain.tokens),
      SETTLEMENT_MNEMONIC: DEV_SETTLEMENT_MNEMONIC,
    };
    return { databaseUrl, temporalAddress: server.address, rpcUrl: chain.rpcUrl, tokens: chain.tokens, env, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function dropDatabase(name: string) {
  const sql = postgres(databaseUrlFor('postgres'), { max: 1, onnotice: () => {} });
  await sql.unsafe(`drop database if exists "${name}" with (force)`).finally(() => sql.end());
}
