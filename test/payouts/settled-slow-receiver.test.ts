import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payFromWallet } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';
import { startReceiver } from '../support/receiver';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { merchantWithFreshWallet, openSession, ownTreasury } from './support';

// The settlement run's announcement of a confirmed payout writes each payment's payment.settled
// and makes its first delivery attempts itself. A receiver that takes longer to answer than the
// activity's heartbeat timeout (10 s), within the webhook timeout (20 s here), must not cost the
// attempt: it stays alive meanwhile, so the announcement completes in its first attempt, not in one
// the server starts after timing the first out.
const own = ownTreasury({ WEBHOOK_TIMEOUT_MS: '20000' });
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;
const SLOW_MS = 12_000;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver((d) => ({ status: 200, delayMs: d.body.event === 'payment.settled' ? SLOW_MS : 0 }));
});
afterAll(() => receiver.close());

describe('payment.settled to a slow receiver', () => {
  it('is posted from the settlement run’s announcement, which stays alive while the receiver answers', async () => {
    const m = await merchantWithFreshWallet(ctx, 150);
    const id = await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks` });
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g);
    await waitForStatus(ctx, id, 'completed');

    const deliveries = await eventually(
      () => ctx.db.sql`select d.status, count(a.*)::int as attempts
        from webhook_deliveries d join events e on e.id = d.event_id left join webhook_attempts a on a.delivery_id = d.id
        where e.payment_id = ${id} and e.type = 'payment.settled' group by d.id, d.status`,
      (rows) => rows.length === 1 && rows[0]!.status === 'succeeded',
      60_000,
      'payment.settled delivered',
    );
    expect(deliveries).toEqual([{ status: 'succeeded', attempts: 1 }]);
    expect(receiver.received.filter((d) => d.body.event === 'payment.settled')).toHaveLength(1);
    // The run that paid it: its announcement scheduled once, completed in its first attempt.
    const [payout] = await ctx.db.sql`select p.id from payout_items i join payouts p on p.id = i.payout_id
      where i.payment_id = ${id} and p.kind = 'merchant' and p.status = 'confirmed'`;
    const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
    const runs = (await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId);
    const histories = await Promise.all(runs.map(async (run) => (await ctx.temporal.workflow.getHandle(run).fetchHistory()).events ?? []));
    const events = histories.find((h) =>
      h.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'announcePayoutSettled'),
    );
    expect(events, `the run that paid ${payout!.id as string}`).toBeDefined();
    const announced = events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'announcePayoutSettled');
    expect(announced).toHaveLength(1);
    const started = events!.filter(
      (e) =>
        e.activityTaskStartedEventAttributes &&
        Number(e.activityTaskStartedEventAttributes.scheduledEventId) === Number(announced[0]!.eventId),
    );
    expect(started.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([1]);
  }, 90_000);
});
