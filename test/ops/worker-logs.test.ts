import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { WORKER_BUNDLE_CACHE } from '../../src/worker/workflow-bundle';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { envFor, killHard, startEntryPoint } from '../support/processes';
import { startReceiver } from '../support/receiver';

// Worker.ts as a real process, a merchant endpoint that answers 500
// twice. Every line the worker writes is pino JSON; each failed delivery attempt is one line that
// names the delivery and the payment, without a stack: the business event `webhook.attempt_failed`,
// written by the attempt itself, whichever part of the run makes it (the emitting activity makes
// the first, the delivery schedule the next: an SDK "Activity failed" line exists only for those).
const ctx = useTestApp({}, { listen: true, sandbox: true });
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of children) await killHard(c);
  for (const close of closers) await close();
});

describe('the worker’s log', () => {
  it('has one JSON line per failed webhook delivery attempt, naming the delivery, without a stack', async () => {
    const receiver = await startReceiver((_d, i) => ({ status: i < 2 ? 500 : 200 }));
    closers.push(receiver.close);
    const env = {
      ...envFor(ctx.config),
      WEBHOOK_RETRY_BASE_SECONDS: '0.5',
      WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '1',
      WEBHOOK_RETRY_WINDOW_HOURS: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'info',
    };
    const { child, output } = await startEntryPoint('worker.ts', env, /worker: polling/);
    children.push(child);

    const m = await createApprovedMerchant(ctx.app);
    const created = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 15, currency: 'USD', countryCode: 'US', webhookUrl: `${receiver.url}/hook` },
    });
    expect(created.status).toBe(201);
    const id = created.json.checkoutSession.id as string;
    expect(
      (await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: id, outcome: 'succeeded' } }))
        .status,
    ).toBe(200);
    await eventually(
      async () => receiver.received.length,
      (n) => n >= 3,
      30_000,
      'a delivery after two failed attempts',
    );
    // The SDK's log lines are forwarded with a short buffer: wait for the two failed attempts' lines.
    await eventually(
      async () =>
        output()
          .split('\n')
          .filter((l) => l.includes('"webhook.attempt_failed"') && l.includes(id)).length,
      (n) => n >= 2,
      10_000,
      'the failed attempts logged',
    );

    const lines = output()
      .split('\n')
      .filter((l) => l.trim() !== '');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.every((l) => typeof l.level === 'number' && typeof l.msg === 'string')).toBe(true);
    // The start-up line says where the workflow code came from; either way the cache holds it now.
    const startup = parsed.find((l) => /worker: polling/.test(l.msg as string));
    expect(['cached', 'bundled']).toContain(startup?.workflowBundle);
    expect((await readdir(WORKER_BUNDLE_CACHE.dir)).filter((name) => name.endsWith('.js')).length).toBeGreaterThan(0);
    const deliveries = await ctx.db.sql`select id from webhook_deliveries where payment_id = ${id}`;
    const deliveryIds = new Set(deliveries.map((d) => d.id as string));
    const failures = parsed.filter((l) => l.businessEvent === 'webhook.attempt_failed' && deliveryIds.has(l.deliveryId as string));
    expect(failures).toHaveLength(2);
    for (const line of failures) {
      expect(line).toMatchObject({ level: 30, paymentId: id, statusCode: 500, error: 'HTTP 500' });
      expect(JSON.stringify(line)).not.toMatch(/\\n\s+at /);
    }
    // Each failed delivery is retried and delivered, and its line says so.
    for (const failed of new Set(failures.map((l) => l.deliveryId as string))) {
      await eventually(
        async () =>
          output()
            .split('\n')
            .filter((l) => l.includes('"webhook.delivered"') && l.includes(failed)).length,
        (n) => n === 1,
        30_000,
        `the delivered line of ${failed}`,
      );
    }
    expect(output()).not.toMatch(/\n\s+at /);
    // A worker process of its own (its start bundles the workflows), three attempts a second apart
    // and their lines: about 30 s on a loaded 2-core machine, too near the default timeout.
  }, 90_000);
});
