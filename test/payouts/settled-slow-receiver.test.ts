import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payFromWallet } from '../support/chain';
import { useTestApp } from '../support/harness';
import { startReceiver } from '../support/receiver';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { merchantWithFreshWallet, openSession, ownTreasury } from './support';

// Issue 32: the payout attempt that sees a session's last receipt writes payment.settled and makes
// its first delivery attempts itself. A receiver that takes longer to answer than the attempt's
// heartbeat timeout (5 s, and the SDK may send the last heartbeat up to 4 s late), within the webhook
// timeout (20 s here), must not cost the attempt: it stays alive meanwhile, so the payout completes in
// its first attempt, not in one the server starts after timing the first out.
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
  it('is posted from the payout attempt, which stays alive while the receiver answers', async () => {
    const m = await merchantWithFreshWallet(ctx, 150);
    const id = await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks` });
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g);
    await waitForStatus(ctx, id, 'completed');

    const handle = ctx.temporal.workflow.getHandle(id);
    expect((await handle.result()).status).toBe('completed');
    const settled = receiver.received.filter((d) => d.body.event === 'payment.settled');
    expect(settled).toHaveLength(1);
    const deliveries = await ctx.db.sql`select d.status, count(a.*)::int as attempts
      from webhook_deliveries d join events e on e.id = d.event_id left join webhook_attempts a on a.delivery_id = d.id
      where e.payment_id = ${id} and e.type = 'payment.settled' group by d.id, d.status`;
    expect(deliveries).toEqual([{ status: 'succeeded', attempts: 1 }]);
    // The payout's activity: scheduled once, completed in its first attempt.
    const events = (await handle.fetchHistory()).events ?? [];
    const started = events.filter((e) => e.activityTaskStartedEventAttributes);
    expect(started.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([1]);
  }, 90_000);
});
