import { WithStartWorkflowOperation, WorkflowIdConflictPolicy, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { PAYMENT_REFUND_WORKFLOW, requestRefundUpdate } from '../../src/workflows/payment-refund/messages';
import { payFromWallet, randomAddress } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { merchantWithFreshWallet, openSession, ownTreasury, payoutsOf } from '../payouts/support';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { replayRuns } from './histories';

// Runs of the paymentRefund workflow: one refunded (recorded by its run with its draw on the
// merchant's balance, planned, sent from the treasury, confirmed, payment.refunded), one whose plan
// was refused (the treasury as its address: asked of the run past the API's checks) and now waits,
// failed, for an operator's retry, one whose request the run refused (more than is left to refund),
// and one whose request never reached it, which reads its row after its wait.
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

    // Asked of the run directly, past the API's address check: recorded, then its plan refused.
    const ask = (refundId: string, amountMicro: bigint, address: string) =>
      ctx.temporal.workflow.executeUpdateWithStart(requestRefundUpdate, {
        args: [
          {
            paymentId: id,
            amountMicro: amountMicro.toString(),
            address,
            requestedBy: 'admin',
            requestKey: null,
            audit: null,
            notAfter: Date.now() + 60_000,
          },
        ],
        startWorkflowOperation: new WithStartWorkflowOperation(PAYMENT_REFUND_WORKFLOW, {
          workflowId: refundId,
          taskQueue: ctx.config.temporal.taskQueue,
          args: [{ refundId, paymentId: id }],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        }),
      });
    const failed = 'rf_' + 'F'.repeat(24);
    expect(await ask(failed, 1_000_000n, own.treasury)).toEqual({ standing: 'requested', repeated: false });
    await eventually(
      () => ctx.db.sql`select status, failure_reason from payment_refunds where id = ${failed}`.then((r) => r[0]!),
      (r) => r.status === 'failed',
      30_000,
      'the refused refund failed',
    );
    // More than is left to refund of the payment: refused by the run, which ends with nothing written.
    const refused = 'rf_' + 'R'.repeat(24);
    await expect(ask(refused, g, randomAddress())).rejects.toThrow(WorkflowUpdateFailedError);
    expect(await ctx.temporal.workflow.getHandle(refused).result()).toBe('refused');
    expect(await ctx.db.sql`select id from payment_refunds where id = ${refused}`).toEqual([]);
    // A run whose request was lost after its start: after its wait it reads its row (already
    // refunded here, as a run started again after one that finished) and ends with it.
    const lost = 'rf_' + 'L'.repeat(24);
    await ctx.db.sql`insert into payment_refunds (id, payment_id, merchant_id, asset, network, amount_micro, address, requested_by, status)
      values (${lost}, ${id}, ${m.id}, 'USDC', 'polygon', 1000000, ${randomAddress()}, 'admin', 'refunded')`;
    const started = await ctx.temporal.workflow.start(PAYMENT_REFUND_WORKFLOW, {
      workflowId: lost,
      taskQueue: ctx.config.temporal.taskQueue,
      args: [{ refundId: lost, paymentId: id, requestWaitMs: 500 }],
    });
    expect(await started.result()).toBe('refunded');
    await replayRuns(ctx.temporal, 'payment-refund', { refunded, failed, refused, lost });
  }, 180_000);
});
