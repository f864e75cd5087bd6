import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { PaymentStatusKey } from '../../src/workflows/search-attributes';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { useProductionTemporal } from '../support/production-temporal';

// The production server (temporal-server 1.29.1 on Postgres, as `npm run
// temporal:server` runs it) on random ports and fresh databases, with a payment paid through it.
// The go build is cached after the first run; setting up the schemas takes seconds.

const overrides: Record<string, string> = {};
const server = useProductionTemporal(overrides);
const ctx = useTestApp(overrides, { listen: true, sandbox: true, worker: true });

describe('the production Temporal server on Postgres', () => {
  it('runs a checkout session paid through the sandbox to completion, with our search attributes', async () => {
    console.log(`production Temporal server ready in ${server.startedInSeconds.toFixed(1)} s`);
    expect(ctx.config.temporal.address).toBe(server.address);
    const m = await createApprovedMerchant(ctx.app, { name: 'Production Server Shop' });
    const created = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 12, currency: 'USD', countryCode: 'US', orderId: 'order-prod-server' },
    });
    expect(created.status).toBe(201);
    const id = created.json.checkoutSession.id as string;

    expect(
      (await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: id, outcome: 'succeeded' } }))
        .status,
    ).toBe(200);
    await eventually(
      () =>
        http('GET', `${ctx.baseUrl}/api/v1/payment-sessions/${id}`, { headers: { authorization: `Bearer ${m.apiKey}` } }).then(
          (r) => r.json.paymentSession.status as string,
        ),
      (s) => s === 'completed',
      30_000,
      `${id} to complete`,
    );
    const handle = ctx.temporal.workflow.getHandle(id);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect((await handle.describe()).typedSearchAttributes.get(PaymentStatusKey)).toBe('completed');

    // The run's history is in the server's own Postgres database, not in a dev server's SQLite.
    const sql = postgres(server.mainDatabaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`select count(*)::int as n from executions where workflow_id = ${id}`;
      expect(row?.n).toBe(1);
    } finally {
      await sql.end();
    }
  });
});
