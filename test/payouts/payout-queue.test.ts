import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { mint } from '../support/chain';
import { useTestApp } from '../support/harness';
import { pressPay, sessionRow } from '../proof/support';
import { merchantWithFreshWallet, openSession, ownTreasury, waitForPayouts } from './support';

// Payouts run on their own task queue (domain/task-queues.ts), PAYOUT_CONCURRENCY at a time per
// worker: payments paid at once are each paid out, the others' sendPayouts waiting on the queue
// (scheduled, not started) while the slots are taken.
const own = ownTreasury();
const SLOTS = 2;
const ctx = useTestApp({ ...own.overrides, PAYOUT_CONCURRENCY: String(SLOTS) }, { listen: true, sandbox: true, worker: true });
const token = own.chain.tokens.polygon.USDC;
const N = 6;

/** How many of the runs' sendPayouts activities are running (started) and how many wait on the queue (scheduled). */
async function payoutActivities(ids: string[]): Promise<{ started: number; waiting: number }> {
  let started = 0;
  let waiting = 0;
  for (const id of ids) {
    const { raw } = await ctx.temporal.workflow.getHandle(id).describe();
    for (const a of raw.pendingActivities ?? []) {
      if (a.activityType?.name !== 'sendPayouts') continue;
      if (a.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) started++;
      else if (a.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED) waiting++;
    }
  }
  return { started, waiting };
}

describe('the payouts task queue', () => {
  it(`sends ${N} payouts paid at once ${SLOTS} at a time, each once`, async () => {
    const m = await merchantWithFreshWallet(ctx, 100);
    const sessions = await Promise.all(
      Array.from({ length: N }, async () => {
        const id = await openSession(ctx, m.apiKey);
        const g = await pressPay(ctx, id);
        return { id, g, deposit: (await sessionRow(ctx, id)).depositAddress };
      }),
    );
    await Promise.all(sessions.map((s) => mint(own.chain, token, s.deposit, s.g)));
    const ids = sessions.map((s) => s.id);

    let maxStarted = 0;
    let maxWaiting = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const now = await payoutActivities(ids);
        maxStarted = Math.max(maxStarted, now.started);
        maxWaiting = Math.max(maxWaiting, now.waiting);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      for (const s of sessions) {
        const payouts = await waitForPayouts(ctx, s.id, 120_000);
        expect(payouts.filter((p) => p.kind === 'merchant')).toHaveLength(1);
      }
    } finally {
      sampling = false;
      await sampler;
    }
    expect(maxStarted).toBeGreaterThanOrEqual(1);
    expect(maxStarted).toBeLessThanOrEqual(SLOTS);
    expect(maxWaiting).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
