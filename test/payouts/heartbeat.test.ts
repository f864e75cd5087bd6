import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { commissionSplit } from '../../src/domain/money';
import { balanceOf, payFromWallet } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';
import { merchantWithFreshWallet, openSession, ownTreasury, payoutsOf } from './support';

// A payout attempt heartbeats while it waits for the chain, under a heartbeat timeout of a
// few seconds, so a worker lost mid-payout is noticed within seconds (not at the attempt's 30 s).
// A hundred confirmations on the run's shared anvil, which mines a block per transaction: the
// settlement run's transactions wait for blocks this test mines, and while they wait the activity's heartbeats
// reach the server (describe's pending activity). Other files' transactions mine blocks on the same
// anvil meanwhile: with a few confirmations they confirmed the payout before a second heartbeat came;
// a thousand, mined in one call, took anvil over 10 s under the full suite.
const CONFIRMATIONS = 100;
const own = ownTreasury({ CHAIN_POLYGON_CONFIRMATIONS: String(CONFIRMATIONS), PAYOUT_INTERVAL_SECONDS: '1' });
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;

/** Enough blocks at once to confirm what is mined so far. */
const mine = () => chain.control.mine({ blocks: CONFIRMATIONS });

describe('a payout waiting for its confirmations', () => {
  it('heartbeats under a heartbeat timeout of 5 s, and completes once the blocks come', async () => {
    const token = chain.tokens.polygon.USDC;
    const m = await merchantWithFreshWallet(ctx, 150);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    await payFromWallet(chain, token, depositAddress, g);
    // The deposit's own confirmations.
    await eventually(
      async () => (await mine(), (await ctx.db.sql`select status from checkout_sessions where id = ${id}`)[0]!.status as string),
      (status) => status === 'completed',
      60_000,
      'the deposit to be confirmed',
    );

    // A settlement run's sweep is broadcast and mined in one block: its attempt now polls for the
    // receipt's confirmations, which no block brings until this test mines.
    const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
    const running = await eventually(
      async () => (await schedule.describe()).info.runningActions[0]?.workflow.workflowId,
      (workflowId) => workflowId !== undefined,
      60_000,
      'a settlement run',
    );
    const handle = ctx.temporal.workflow.getHandle(running!);
    const pending = await eventually(
      async () => {
        const { raw } = await handle.describe();
        return (raw.pendingActivities ?? []).find((a) => a.activityType?.name === 'sendPayouts');
      },
      (a) => a?.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED && !!a.lastHeartbeatTime,
      60_000,
      'the payout attempt to heartbeat',
    );
    expect(pending!.attempt).toBe(1);
    const scheduled = ((await handle.fetchHistory()).events ?? []).find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendPayouts',
    )!.activityTaskScheduledEventAttributes!;
    expect(Number(scheduled.heartbeatTimeout?.seconds ?? 0)).toBe(5);
    expect(Number(scheduled.startToCloseTimeout?.seconds ?? 0)).toBe(30);
    // Its first heartbeat can come before the sweep's row reads broadcast (a loaded machine).
    await eventually(
      async () => (await payoutsOf(ctx, id)).map((p) => p.status),
      (statuses) => statuses.includes('broadcast'),
      30_000,
      'the sweep broadcast',
    );
    // It goes on heartbeating while it waits: a later heartbeat than the first one seen (the SDK sends
    // one every 4 s at most, 80 % of the timeout; an attempt watches for 8 s, then the next takes over).
    const beats = new Set<string>();
    await eventually(
      async () => {
        const { raw } = await handle.describe();
        const a = (raw.pendingActivities ?? []).find((x) => x.activityType?.name === 'sendPayouts');
        if (a?.lastHeartbeatTime) beats.add(`${a.attempt}/${String(a.lastHeartbeatTime.seconds)}.${a.lastHeartbeatTime.nanos ?? 0}`);
        return beats.size;
      },
      (n) => n >= 2,
      30_000,
      'a second heartbeat while the payout waits',
    );

    // The blocks come: every payout is confirmed, once.
    const payouts = await eventually(
      async () => (await mine(), await payoutsOf(ctx, id)),
      (ps) => ps.length === 2 && ps.every((p) => p.status === 'confirmed'),
      90_000,
      'the sweep and the payout to be confirmed',
    );
    expect(payouts.map((p) => p.kind)).toEqual(['sweep', 'merchant']);
    expect(await balanceOf(chain, token, m.wallet)).toBe(commissionSplit(g, 150).merchant);
    await waitForStatus(ctx, id, 'completed');
  }, 180_000);
});
