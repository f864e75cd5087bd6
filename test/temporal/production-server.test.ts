import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/domain/ids';
import { startProductionServer } from '../../src/temporal/server';
import { PaymentStatusKey } from '../../src/workflows/search-attributes';
import { adminDatabaseUrl } from '../support/databases';
import { freePort, freePortIn } from '../support/free-port';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';

// Issue 14 item 3: the production server (temporal-server 1.29.1 on Postgres, as `npm run
// temporal:server` runs it) on random ports and fresh databases, with a payment paid through it.
// The go build is cached after the first run; setting up the schemas takes seconds.

const suffix = randomBase62(8).toLowerCase();
const databases = { postgresUrl: adminDatabaseUrl().replace(/\/postgres$/, ''), main: `temporal_test_${suffix}`, visibility: `temporal_test_${suffix}_visibility` };
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-temporal-server-'));
// Filled in before the harness's own beforeAll reads it (hooks run in the order they are registered).
const overrides: Record<string, string> = {};
let server: Awaited<ReturnType<typeof startProductionServer>> | undefined;
let startedInSeconds = 0;

beforeAll(async () => {
  const [frontend, frontendHttp, history, matching, worker] = (await Promise.all(Array.from({ length: 5 }, () => freePort()))) as [number, ...number[]];
  // Membership ports are stored in a smallint column.
  const [frontendMembership, historyMembership, matchingMembership, workerMembership] = await Promise.all(Array.from({ length: 4 }, () => freePortIn(20_000, 32_000)));
  const started = performance.now();
  server = await startProductionServer({
    dir,
    databases,
    namespace: 'default',
    ports: { frontend, frontendHttp: frontendHttp!, frontendMembership: frontendMembership!, history: history!, historyMembership: historyMembership!, matching: matching!, matchingMembership: matchingMembership!, worker: worker!, workerMembership: workerMembership! },
    log: () => {},
  });
  startedInSeconds = (performance.now() - started) / 1000;
  overrides.TEMPORAL_ADDRESS = server.address;
}, 600_000);

const ctx = useTestApp(overrides, { listen: true, sandbox: true, worker: true });

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

describe('the production Temporal server on Postgres', () => {
  it('runs a checkout session paid through the sandbox to completion, with our search attributes', async () => {
    console.log(`production Temporal server ready in ${startedInSeconds.toFixed(1)} s`);
    expect(ctx.config.temporal.address).toBe(server?.address);
    const m = await createApprovedMerchant(ctx.app, { name: 'Production Server Shop' });
    const created = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 12, currency: 'USD', countryCode: 'US', orderId: 'order-prod-server' },
    });
    expect(created.status).toBe(201);
    const id = created.json.checkoutSession.id as string;

    expect((await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: id, outcome: 'succeeded' } })).status).toBe(200);
    await eventually(
      () => http('GET', `${ctx.baseUrl}/api/v1/payment-sessions/${id}`, { headers: { authorization: `Bearer ${m.apiKey}` } }).then((r) => r.json.paymentSession.status as string),
      (s) => s === 'completed',
      30_000,
      `${id} to complete`,
    );
    const handle = ctx.temporal.workflow.getHandle(id);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect((await handle.describe()).typedSearchAttributes.get(PaymentStatusKey)).toBe('completed');

    // The run's history is in the server's own Postgres database, not in a dev server's SQLite.
    const sql = postgres(`${databases.postgresUrl}/${databases.main}`, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`select count(*)::int as n from executions where workflow_id = ${id}`;
      expect(row?.n).toBe(1);
    } finally {
      await sql.end();
    }
  });
});
