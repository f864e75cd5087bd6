import { AsyncLocalStorage } from 'node:async_hooks';
import { Context } from '@temporalio/activity';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities';
import type { DbHandle } from '../../src/db/client';
import { withPreparedStatements } from '../../src/db/prepared-statements';
import * as schema from '../../src/db/schema';
import { createSessionCanceller } from '../../src/temporal/session-cancel';
import { createWorker } from '../../src/worker/worker';
import { useTestApp, startTestWatchers, workflowBundle } from '../support/harness';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';
import { merchantWithFreshWallet, openSession, ownTreasury, payoutsOf, waitForPayouts } from '../payouts/support';
import { ensureSettlementSchedule, settlementScheduleId } from '../../src/temporal/settlement-schedules';

// The SQL statements the worker sends for chain-verified payments, from the provider's hint to
// payment.settled, counted per activity (postgres.js's debug hook, on a pool of the worker's own):
// each payment's completion, then one settlement run that sweeps and pays them all, shared between
// them. The minimal implementation (bench/minimal) sends about 12 per payment, paying each out on its
// own; a bound here keeps a statement added to the hot path from going unnoticed. The chain
// watchers' statements are per scan, not per payment: counted apart and not bounded.

const PAYMENTS = 5;
/**
 * Statements the activities may send for each payment on its own (its completion, its
 * payment.settled): 34 when each payment was also paid out on its own (a gas top-up, its share, the
 * commission), about 18 once settlement runs paid them, about 15 since a move's write returns what
 * its event needs and a credit's insert returns the payment's credits, about 13 since a completion's
 * postings go with its transaction row and a payout's payment.settled outcomes are written together.
 */
const BUDGET = 20;
/**
 * Statements of the settlement run (activities of settlementRun), shared by the payments it settles:
 * about 37 for one sweep and one payout (a payout's row and its items are one insert; a merchant's
 * balance is read with their last payout, under their lock).
 */
const RUN_BUDGET = 42;
/** Where the statements of activities' retries and repeated calls are counted, outside both budgets. */
const RETRIES = '(retries)';
/** The payments a credit was asked for so far. */
const seen = new Set<string>();
const RUN_ACTIVITIES = new Set([
  'settlementDue',
  'releaseHolds',
  'planSweeps',
  'sendPayouts',
  'planMerchantPayouts',
  'settlementPayoutFailed',
]);

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
      // A retry (an attempt that timed out on a loaded machine, run again) and a second credit of
      // the same payment (a fact told again, as a watcher does after a slow scan) are counted apart:
      // their statements are the machine's load, not what a payment costs.
      (...args: unknown[]) => {
        const told = name === 'creditSession' ? `${name} ${String(args[0])}` : null;
        const again = Context.current().info.attempt > 1 || (told !== null && seen.has(told));
        if (told) seen.add(told);
        return activity.run(again ? RETRIES : name, () => (fn as (...a: unknown[]) => unknown)(...args));
      },
    ]),
  ) as typeof activities;
  const worker = await createWorker({ temporal: ctx.config.temporal, activities: named, workflowBundle: await workflowBundle() });
  void worker.run();
  const watchers = startTestWatchers({ ...ctx, db: workerDb });
  // The settlement runs: paused, so that only the run this test triggers is counted (an idle run's
  // statements are per interval, not per payment).
  const removeSchedule = await ensureSettlementSchedule(ctx.temporal, {
    taskQueue: ctx.config.temporal.taskQueue,
    networks: ctx.config.chains.networks,
    settlement: ctx.config.chains.settlement,
  });
  await ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue)).pause();
  stop = async () => {
    await removeSchedule();
    await watchers.stop();
    await worker.shutdown();
    await workerDb.close();
  };
});
afterAll(async () => {
  await stop?.();
  await receiver?.close();
});

describe('SQL statements per payment', () => {
  it(`stay within ${BUDGET} for a chain-verified payment and ${RUN_BUDGET} for the run that settles ${PAYMENTS}`, async () => {
    const m = await merchantWithFreshWallet(ctx, 150);
    const ids: string[] = [];
    for (let i = 0; i < PAYMENTS; i++) ids.push(await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks` }));
    counting = true;
    for (const id of ids) {
      const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
        body: { reference: id, outcome: 'succeeded' },
      });
      expect(paid.status).toBe(200);
      await ctx.temporal.workflow.getHandle(id).result();
    }
    // One run settles them all: a sweep, then the merchant's payout.
    await ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue)).trigger();
    for (const id of ids) {
      await waitForPayouts(ctx, id);
      await eventually(
        async () => receiver.received.filter((d) => d.body.sessionId === id && d.body.event === 'payment.settled').length,
        (n) => n === 1,
        30_000,
        `payment.settled of ${id}`,
      );
    }
    expect(new Set((await Promise.all(ids.map((id) => payoutsOf(ctx, id)))).flat().map((p) => p.id)).size).toBe(2);
    counting = false;
    // The payout's payment.settled attempts had their outcomes written together: each delivered, one attempt each.
    const settled = await ctx.db.sql`select d.status, d.last_status_code, count(a.id)::int as attempts, max(a.status_code) as code
      from webhook_deliveries d join events e on e.id = d.event_id left join webhook_attempts a on a.delivery_id = d.id
      where e.type = 'payment.settled' and d.payment_id in ${ctx.db.sql(ids)} group by d.id`;
    expect(settled).toEqual(ids.map(() => ({ status: 'succeeded', last_status_code: 200, attempts: 1, code: 200 })));
    const perPayment = [...counts].map(([name, n]) => [name, n / PAYMENTS] as const).sort((a, b) => b[1] - a[1]);
    const inActivities = perPayment.filter(([name]) => name !== '(watchers)' && name !== RETRIES).reduce((sum, [, n]) => sum + n, 0);
    const ofRun = [...counts].filter(([name]) => RUN_ACTIVITIES.has(name)).reduce((sum, [, n]) => sum + n, 0);
    console.log(
      `statements per payment: ${inActivities.toFixed(1)} in activities\n${perPayment.map(([name, n]) => `  ${name}: ${n.toFixed(1)}`).join('\n')}`,
    );
    console.log(`statements of the settlement run: ${ofRun}`);
    expect(inActivities - ofRun / PAYMENTS).toBeLessThanOrEqual(BUDGET);
    expect(ofRun).toBeLessThanOrEqual(RUN_BUDGET);
  }, 240_000);
});
