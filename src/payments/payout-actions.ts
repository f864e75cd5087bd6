import { findPayout, listPayoutsByStatus, type PayoutRow } from '../db/queries/payouts';
import { clearFailedSettlementRows, merchantPaidBy } from '../db/queries/settlement-payouts';
import { updatePayoutSettings } from '../db/queries/merchants';
import { isSettlementPayout } from '../domain/ledger';
import { listPaymentExceptions } from '../db/queries/payment-exceptions';
import { AppError, notFound } from '../domain/errors';
import { isPayoutId } from '../domain/ids';
import { retryPayoutUpdate } from '../workflows/checkout-session/messages';
import type { PaymentContext } from './context';
import { callTemporal, WorkflowClosedError, WorkflowRefusedError } from './temporal-call';

// Payout failures, the operators' side (docs/settlement.md, "Failures"). A failed payout is never signed from here: a
// refund's or a simple order's run, waiting after the failure, is asked to try again; a settlement
// run's sweep or payout is planned anew by the next run once the operator clears it.

export async function listPayouts(ctx: PaymentContext, status: PayoutRow['status'] | undefined, limit: number): Promise<PayoutRow[]> {
  return listPayoutsByStatus(ctx.db, status, limit);
}

/**
 * The runs that may own a payment's settlement, in the order they are asked: the payment's own (a
 * checkout session or simple order, id = payment id), then the runs of exceptions that accepted it
 * (an accepted late or underpaid payment is paid out from the exception's run).
 */
async function settlementRuns(ctx: PaymentContext, paymentId: string): Promise<string[]> {
  const accepted = (await listPaymentExceptions(ctx.db, paymentId)).filter((e) => e.status === 'accepted').map((e) => e.id);
  return [paymentId, ...accepted];
}

/**
 * Tries a failed payout again (POST /admin/v1/payouts/{id}/retry): the owning run, waiting after the
 * failure, takes the retryPayout update, reopens the failed rows and sends them once more. 404 for an
 * unknown payout; 409 unless it is failed, for an exception's refund (retried through its exception),
 * when no run waits any more (its retry window has passed), or when the run refuses the retry with its
 * reason (a completed payment's refund whose amount its payment's rest or its merchant's balance no longer holds).
 */
export async function retryPayout(ctx: PaymentContext, id: string): Promise<PayoutRow> {
  const payout = isPayoutId(id) ? await findPayout(ctx.db, id) : undefined;
  if (!payout) throw notFound('Payout');
  if (payout.status !== 'failed') throw new AppError('Conflict', `This payout is ${payout.status}; only a failed payout can be retried.`);
  if (payout.exceptionId)
    throw new AppError('Conflict', `This payout refunds exception ${payout.exceptionId}; a refund is retried through its exception.`);
  if (isSettlementPayout(payout)) return retrySettlementPayout(ctx, payout);
  // A completed payment's refund is sent, and retried, by its own run (id = refund id).
  const runs = payout.refundId ? [payout.refundId] : await settlementRuns(ctx, payout.paymentId);
  for (const workflowId of runs) {
    try {
      await callTemporal(
        ctx.temporal,
        workflowId,
        () => ctx.temporal.workflow.getHandle(workflowId).executeUpdate(retryPayoutUpdate),
        'This payout cannot be retried.',
      );
      return (await findPayout(ctx.db, payout.id))!;
    } catch (err) {
      // The run took the retry and refused it for a reason of its own (a refund that no longer passes
      // its checks): that reason is the answer.
      if (err instanceof WorkflowRefusedError) throw err;
      // Closed, or not waiting for a retry (no handler: the update is refused): the next candidate.
      if (err instanceof WorkflowClosedError || (err instanceof AppError && err.code === 'Conflict')) continue;
      throw err;
    }
  }
  throw new AppError(
    'Conflict',
    payout.refundId
      ? 'The run of this refund does not wait to retry its payout (its retry window has passed).'
      : 'No run of this payment waits to retry its payout (its retry window has passed).',
  );
}

/**
 * A settlement run's failed sweep or payout: its money never left (a failed payout's amount went back
 * to the merchant's available balance when it failed). The retry clears it and the failed rows of the
 * same payments, so the next run plans them again whatever the attempts bound; for a payout, the
 * merchant's next run pays whatever their schedule, as if they had asked. The row stays failed: it is
 * what happened on chain. 409 once cleared (retried, or carried by a later row).
 */
async function retrySettlementPayout(ctx: PaymentContext, payout: PayoutRow): Promise<PayoutRow> {
  const kind = payout.kind === 'sweep' ? 'sweep' : 'merchant';
  await ctx.db.transaction(async (tx) => {
    const cleared = await clearFailedSettlementRows(tx, payout.id, kind);
    if (!cleared.includes(payout.id))
      throw new AppError('Conflict', 'This payout was retried already, or a later payout carried its payments.');
    const merchantId = kind === 'merchant' ? await merchantPaidBy(tx, payout.id) : null;
    if (merchantId) await updatePayoutSettings(tx, merchantId, { payoutRequestedAt: ctx.now() });
  });
  return (await findPayout(ctx.db, payout.id))!;
}
