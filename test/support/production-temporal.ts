import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { randomBase62 } from '../../src/domain/ids';
import { freeServerPorts, startProductionServer } from '../../tools/temporal/server';
import { adminDatabaseUrl } from './databases';

export interface ProductionTemporal {
  /** Set once the server is up: `host:port` of its frontend. */
  address: string;
  /** The server's own Postgres database (histories live there). */
  mainDatabaseUrl: string;
  startedInSeconds: number;
}

/**
 * The production Temporal server (temporal-server 1.29.1 on Postgres, as `npm run temporal:server`
 * runs it) for one test file: random ports, fresh databases, all removed afterwards. Register it
 * before `useTestApp`, and pass `overrides` to it: hooks run in the order they are registered, so
 * TEMPORAL_ADDRESS is filled in before the harness reads it.
 */
export function useProductionTemporal(overrides: Record<string, string>): ProductionTemporal {
  const suffix = randomBase62(8).toLowerCase();
  const databases = {
    postgresUrl: adminDatabaseUrl().replace(/\/postgres$/, ''),
    main: `temporal_test_${suffix}`,
    visibility: `temporal_test_${suffix}_visibility`,
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-temporal-server-'));
  const state: ProductionTemporal = { address: '', mainDatabaseUrl: `${databases.postgresUrl}/${databases.main}`, startedInSeconds: 0 };
  let server: Awaited<ReturnType<typeof startProductionServer>> | undefined;

  beforeAll(async () => {
    const started = performance.now();
    server = await startProductionServer({
      dir,
      databases,
      namespace: 'default',
      ports: await freeServerPorts(),
      log: () => {},
      // At most 4 services × (4 + 2) connections: the run's other file holds a stack of its own.
      connections: { main: 4, visibility: 2 },
    });
    state.startedInSeconds = (performance.now() - started) / 1000;
    state.address = server.address;
    overrides.TEMPORAL_ADDRESS = server.address;
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
    try {
      for (const name of [databases.main, databases.visibility]) await admin.unsafe(`drop database if exists "${name}" with (force)`);
    } finally {
      await admin.end();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  return state;
}
