import postgres from 'postgres';
import { startDevChainWithTokens } from '../../tools/dev/dev-chain-with-tokens';
import type { TestProject } from 'vitest/node';
import type { TestTokenAddresses } from '../../tools/dev/test-tokens';
import type { SweeperAddresses } from '../../tools/dev/dev-sweepers';
import { prepareDatabase } from '../../src/db/migrate';
import { ensureTemporalBinary } from '../../tools/temporal/cli-binary';
import { startDevServer } from '../../tools/temporal/dev-server';
import { compileEntries } from './compiled-entries';
import { TEMPLATE_DATABASE, adminDatabaseUrl, databaseUrlFor, dropClones } from './databases';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    templateDatabase: string;
    /** The run's dev chain (anvil, in memory) and the test tokens deployed on it for every EVM network. */
    chainRpcUrl: string;
    chainTokens: TestTokenAddresses;
    /** The deposit sweeper of every EVM network on that chain, owned by the development treasury. */
    chainSweepers: SweeperAddresses;
  }
}

// One Temporal dev server and one dev chain for the whole run (random free ports, in memory), and
// one migrated template database that each test file clones into a fresh database of its own; and
// the entry points the files start as processes, compiled (compiled-entries.ts).
export default async function setup(project: TestProject) {
  const binary = ensureTemporalBinary();
  const [server, chain] = await Promise.all([
    startDevServer({ binary, namespace: 'default' }),
    startDevChainWithTokens(),
    prepareTemplate(),
    compileEntries(),
  ]);
  project.provide('temporalAddress', server.address);
  project.provide('templateDatabase', TEMPLATE_DATABASE);
  project.provide('chainRpcUrl', chain.rpcUrl);
  project.provide('chainTokens', chain.tokens);
  project.provide('chainSweepers', chain.sweepers);
  return async () => {
    await Promise.all([server.stop(), chain.stop()]);
    await dropClones(TEMPLATE_DATABASE);
    const sql = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
    await sql.unsafe(`drop database if exists "${TEMPLATE_DATABASE}" with (force)`).finally(() => sql.end());
  };
}

async function prepareTemplate() {
  const sql = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    // A template must have no connections while it is cloned; start from a clean one each run.
    await sql.unsafe(`drop database if exists "${TEMPLATE_DATABASE}" with (force)`);
  } finally {
    await sql.end();
  }
  await prepareDatabase(databaseUrlFor(TEMPLATE_DATABASE));
}
