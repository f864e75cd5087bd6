import { AsyncLocalStorage } from 'node:async_hooks';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities';
import type { DbHandle } from '../../src/db/client';
import { withPreparedStatements } from '../../src/db/prepared-statements';
import * as schema from '../../src/db/schema';
import { createSessionCanceller } from '../../src/temporal/session-cancel';
import { createWorker } from '../../src/worker/worker';
import { useTestApp, startTestWatchers } from '../support/harness';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';
import { merchantWithFreshWallet, openSession, ownTreasury, waitForPayouts } from '../payouts/support';

// Issue 32 item 2: the SQL statements the worker sends for one chain-verified payment, from the
// provider's hint to payment.settled, counted per activity (postgres.js's debug hook, on a pool of
// the worker's own). The minimal implementation (bench/minimal) sends about 12; a bound here keeps
// a statement added to the hot path from going unnoticed. The chain watchers' statements are per
// scan, not per payment: counted apart and not bounded.

const PAYMENTS = 3;
/**
 * Statements the activities may send per payment: 103 before issue 32 item 2 cut them, about 65 after,
 * 43 once the payout's plan was cut (its read, checks and pricing one statement each), the credit
 * that covers G completed in its own transaction, and an event's first attempts begun with its
 * deliveries and signed with the secret its read found; 40 once an event and its deliveries were
 * one statement; 34 once a payout was signed in two (the next free nonce read, the signed row stored)
 * instead of a transaction of four.
 */
const BUDGET = 36;

const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true });
const activity = new AsyncLocalStorage<string>();
const counts = new Map<string, number>();
let counting = false;
let workerDb: DbHandle;
let stop: () => Promise<void>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  const raw = postgres(ctx.config.databaseUrl, {
    max: 10,
    onnotice: () => {},
    debug: (_connection, query) => {
      if (!counting) return;
      const name = activity.getStore() ?? '(watchers)';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (process.env.STATEMENTS_OF === name) console.log(`${name}: ${query.replace(/\s+/g, ' ').slice(0, 160)}`);
    },
  });
  workerDb = { db: drizzle(withPreparedStatements(raw), { schema }), sql: raw, close: () => raw.end({ timeout: 5 }) };
  const activities = createActivities({
    db: workerDb.db,
    providers: ctx.providers,
    publicBaseUrl: ctx.config.http.publicBaseUrl,
    secretsKey: ctx.config.secretsKey,
    allowPrivateUrls: ctx.config.allowPrivateUrls,
    webhooks: ctx.config.webhooks,
    chains: ctx.config.chains,
    cancelSession: createSessionCanceller(ctx.temporal),
    now: () => new Date(),
  });
  const named = Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [
      name,
      (...args: unknown[]) => activity.run(name, () => (fn as (...a: unknown[]) => unknown)(...args)),
    ]),
  ) as typeof activities;
  const worker = await createWorker({ temporal: ctx.config.temporal, activities: named });
  void worker.run();
  const watchers = startTestWatchers({ ...ctx, db: workerDb });
  stop = async () => {
    await watchers.stop();
    await worker.shutdown();
    await workerDb.close();
  };
});
afterAll(async () => {
  await stop?.();
  await receiver?.close();
});

describe('SQL statements per payment (issue 32 item 2)', () => {
  it(`stay within ${BUDGET} for a chain-verified payment through its payout`, async () => {
    const m = await merchantWithFreshWallet(ctx, 150);
    const ids: string[] = [];
    for (let i = 0; i < PAYMENTS; i++) ids.push(await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks` }));
    counting = true;
    for (const id of ids) {
      const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
        body: { reference: id, outcome: 'succeeded' },
      });
      expect(paid.status).toBe(200);
      await waitForPayouts(ctx, id);
      await eventually(
        async () => receiver.received.filter((d) => d.body.sessionId === id && d.body.event === 'payment.settled').length,
        (n) => n === 1,
        30_000,
        `payment.settled of ${id}`,
      );
      await ctx.temporal.workflow.getHandle(id).result();
    }
    counting = false;
    const perPayment = [...counts].map(([name, n]) => [name, n / PAYMENTS] as const).sort((a, b) => b[1] - a[1]);
    const inActivities = perPayment.filter(([name]) => name !== '(watchers)').reduce((sum, [, n]) => sum + n, 0);
    console.log(
      `statements per payment: ${inActivities.toFixed(1)} in activities\n${perPayment.map(([name, n]) => `  ${name}: ${n.toFixed(1)}`).join('\n')}`,
    );
    expect(inActivities).toBeLessThanOrEqual(BUDGET);
  }, 240_000);
});
