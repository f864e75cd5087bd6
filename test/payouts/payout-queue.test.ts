import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, mint, randomAddress } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { startRpcTrapProxy } from '../support/rpc-trap-proxy';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { merchantWithFreshWallet, openSession, ownTreasury, payoutsOf, refundAllAtOnce } from './support';

// Payouts run on their own task queue (domain/task-queues.ts), PAYOUT_CONCURRENCY at a time per
// worker: refunds asked at once are each sent, the others' sendPayouts waiting on the queue
// (scheduled, not started) while the slots are taken. The worker reaches the chain through a proxy
// that can withhold receipts: while it does, the payouts holding the slots wait for confirmations,
// so the others are seen waiting whatever the machine's speed.
const SLOTS = 2;
const own = ownTreasury({ PAYOUT_CONCURRENCY: String(SLOTS) });
let proxy: Awaited<ReturnType<typeof startRpcTrapProxy>>;
// Before the app starts (registered before useTestApp's own beforeAll): its polygon is the proxy.
beforeAll(async () => {
  proxy = await startRpcTrapProxy(own.chain.rpcUrl);
  own.overrides.CHAIN_POLYGON_RPC_URL = proxy.url;
});
afterAll(() => proxy.close());
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const token = own.chain.tokens.polygon.USDC;
const N = 6;

/** The runs' sendPayouts activities right now: waiting on the queue (scheduled) and holding a slot (started). */
async function payoutStates(ids: string[]): Promise<{ waiting: number; running: number }> {
  const states = temporal.api.enums.v1.PendingActivityState;
  const counts = { waiting: 0, running: 0 };
  for (const id of ids) {
    const { raw } = await ctx.temporal.workflow.getHandle(id).describe();
    for (const a of raw.pendingActivities ?? []) {
      if (a.activityType?.name !== 'sendPayouts') continue;
      if (a.state === states.PENDING_ACTIVITY_STATE_SCHEDULED) counts.waiting++;
      if (a.state === states.PENDING_ACTIVITY_STATE_STARTED) counts.running++;
    }
  }
  return counts;
}

const msOf = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/**
 * The most sendPayouts attempts that ran at once, from the runs' histories: each attempt from its
 * start to its close, both stamped by the server's clock. (Sampling describe() run by run counts an
 * attempt that closed during the sweep together with the one that took its slot.)
 */
async function mostRunningAtOnce(ids: string[]): Promise<number> {
  const edges: [number, number][] = [];
  for (const id of ids) {
    const events = (await ctx.temporal.workflow.getHandle(id).fetchHistory()).events ?? [];
    const payouts = new Set(
      events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendPayouts').map((e) => Number(e.eventId)),
    );
    for (const e of events) {
      const started = e.activityTaskStartedEventAttributes;
      if (started && payouts.has(Number(started.scheduledEventId))) edges.push([msOf(e.eventTime), 1]);
      const closed = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
      if (closed && payouts.has(Number(closed.scheduledEventId))) edges.push([msOf(e.eventTime), -1]);
    }
  }
  // At the same instant a close frees its slot before a start takes it.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let most = 0;
  for (const [, change] of edges) most = Math.max(most, (running += change));
  return most;
}

describe('the payouts task queue', () => {
  it(`sends ${N} refunds asked at once ${SLOTS} at a time, each once`, async () => {
    const m = await merchantWithFreshWallet(ctx, 100);
    // Paid out manually: the balance keeps the payments' shares for the refunds.
    await ctx.db.sql`update merchants set payout_schedule = 'manual' where id = ${m.id}`;
    const sessions = await Promise.all(
      Array.from({ length: N }, async () => {
        const id = await openSession(ctx, m.apiKey);
        const g = await pressPay(ctx, id);
        return { id, g, deposit: (await sessionRow(ctx, id)).depositAddress };
      }),
    );
    await Promise.all(sessions.map((s) => mint(own.chain, token, s.deposit, s.g)));
    for (const s of sessions) {
      await waitForStatus(ctx, s.id, 'completed', 60_000);
      await eventually(
        async () => (await payoutsOf(ctx, s.id)).map((p) => `${p.kind}:${p.status}`),
        (ps) => ps.includes('sweep:confirmed'),
        90_000,
        `the deposit of ${s.id} swept`,
      );
    }
    const customers = sessions.map(() => randomAddress());
    proxy.withholdReceipts(true);
    const answers = await refundAllAtOnce(
      ctx,
      sessions.map((s, i) => ({ paymentId: s.id, amount: s.g / 2n, address: customers[i]! })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(sessions.map(() => 201));
    const ids = answers.map((a) => a.json().refund.id as string);

    try {
      // The slots are full and every other payout waits for one.
      await eventually(
        () => payoutStates(ids),
        (s) => s.running === SLOTS && s.waiting === N - SLOTS,
        60_000,
        `${SLOTS} payouts sending and ${N - SLOTS} waiting`,
      );
    } finally {
      proxy.withholdReceipts(false);
    }
    for (const id of ids) expect(await ctx.temporal.workflow.getHandle(id).result()).toBe('refunded');
    for (const [i, s] of sessions.entries()) expect(await balanceOf(own.chain, token, customers[i]!)).toBe(s.g / 2n);
    const most = await mostRunningAtOnce(ids);
    expect(most).toBeGreaterThanOrEqual(1);
    expect(most).toBeLessThanOrEqual(SLOTS);
  }, 240_000);
});
