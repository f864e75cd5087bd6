import { describe, expect, it } from 'vitest';
import { payFromWallet, randomAddress } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { merchantWithFreshWallet, openSession, ownTreasury, payoutsOf } from '../payouts/support';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { replayRuns } from './histories';

// Runs of the paymentRefund workflow: one refunded (drawn from the merchant's balance, planned, sent
// from the treasury, confirmed, payment.refunded), one whose plan was refused (the treasury as its address:
// written past the API's checks, as a workflow may be started directly) and now waits, failed, for
// an operator's retry.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { sandbox: true, worker: true, listen: true });
const chain = own.chain;

describe('paymentRefund histories', () => {
  it('replays the current code’s own runs: refunded, failed', async () => {
    const token = chain.tokens.polygon.USDC;
    const m = await merchantWithFreshWallet(ctx);
    // Paid out manually: the balance holds the payment's share after its sweep.
    await ctx.db.sql`update merchants set payout_schedule = 'manual' where id = ${m.id}`;
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    await payFromWallet(chain, token, depositAddress, g);
    await waitForStatus(ctx, id, 'completed');
    await eventually(
      async () => (await payoutsOf(ctx, id)).map((p) => `${p.kind}:${p.status}`),
      (ps) => ps.includes('sweep:confirmed'),
      60_000,
      'the deposit swept into the treasury',
    );

    const answer = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/payments/${id}/refunds`,
      headers: adminHeaders,
      payload: { amount: '1', address: randomAddress() },
    });
    expect(answer.statusCode).toBe(201);
    const refunded = answer.json().refund.id as string;
    expect(await ctx.temporal.workflow.getHandle(refunded).result()).toBe('refunded');

    const failed = 'rf_' + 'F'.repeat(24);
    await ctx.db.sql`insert into payment_refunds (id, payment_id, merchant_id, asset, network, amount_micro, address, requested_by)
      values (${failed}, ${id}, ${m.id}, 'USDC', 'polygon', 1000000, ${own.treasury}, 'admin')`;
    await ctx.temporal.workflow.start('paymentRefund', {
      workflowId: failed,
      taskQueue: ctx.config.temporal.taskQueue,
      args: [{ refundId: failed, paymentId: id }],
    });
    await eventually(
      () => ctx.db.sql`select status, failure_reason from payment_refunds where id = ${failed}`.then((r) => r[0]!),
      (r) => r.status === 'failed',
      30_000,
      'the refused refund failed',
    );
    await replayRuns(ctx.temporal, 'payment-refund', { refunded, failed });
  }, 180_000);
});
