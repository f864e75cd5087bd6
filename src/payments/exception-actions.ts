import { WithStartWorkflowOperation, WorkflowIdConflictPolicy, WorkflowUpdateFailedError } from '@temporalio/client';
import { findPaymentException, listExceptionsByStatus, type PaymentExceptionRow } from '../db/queries/payment-exceptions';
import { isAcceptable, isExceptionId, type ExceptionStatus } from '../domain/exceptions';
import { AppError, notFound } from '../domain/errors';
import { acceptUpdate, PAYMENT_EXCEPTION_WORKFLOW, type AcceptResult, type PaymentExceptionInput } from '../workflows/payment-exception/messages';
import type { PaymentContext } from './context';
import { callTemporal } from './temporal-call';

// Decisions §12: the operators' side of exceptions. Every action runs in the exception's workflow
// (id = exception id) as an update, so it survives a worker crash like the rest of the payment.

export async function listExceptions(ctx: PaymentContext, status: ExceptionStatus | undefined, limit: number): Promise<PaymentExceptionRow[]> {
  return listExceptionsByStatus(ctx.db, status, limit);
}

async function loadException(ctx: PaymentContext, id: string): Promise<PaymentExceptionRow> {
  const exception = isExceptionId(id) ? await findPaymentException(ctx.db, id) : undefined;
  if (!exception) throw notFound('Exception');
  return exception;
}

/**
 * Accept a late or underpaid payment as the payment: the session completes with the money that
 * arrived and `payment.completed` fires. Idempotent: accepting an accepted exception answers the same.
 * Update-with-start, so an exception whose run has closed (or was recorded before runs existed,
 * e.g. a migrated review flag) gets one, and the update still runs in a workflow.
 */
export async function acceptException(ctx: PaymentContext, id: string): Promise<{ exception: PaymentExceptionRow; result: AcceptResult }> {
  const exception = await loadException(ctx, id);
  if (exception.paymentKind !== 'checkout_session' || !isAcceptable(exception.kind)) {
    throw new AppError('Conflict', `A ${exception.kind} exception cannot be accepted as the payment; only late or underpaid checkout payments can.`);
  }
  if (exception.status === 'refunded') throw new AppError('Conflict', 'This exception was refunded.');
  const input: PaymentExceptionInput = { exceptionId: exception.id, paymentId: exception.paymentId };
  const start = new WithStartWorkflowOperation(PAYMENT_EXCEPTION_WORKFLOW, {
    workflowId: exception.id,
    taskQueue: ctx.config.temporal.taskQueue,
    args: [input],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  try {
    const result = await callTemporal(ctx.temporal, exception.id, () => ctx.temporal.workflow.executeUpdateWithStart(acceptUpdate, { startWorkflowOperation: start }));
    return { exception: (await findPaymentException(ctx.db, exception.id))!, result };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || (err instanceof AppError && err.code === 'Conflict')) {
      throw new AppError('Conflict', 'This exception cannot be accepted: its payment is no longer in a state that can be completed.');
    }
    throw err;
  }
}

/**
 * Refund sends the credited amount back on chain (decisions §12); it needs the on-chain payout
 * machinery, which is not in this build. The route exists so the contract is visible and answers
 * 404 NotImplemented (decisions §3, like every route not built yet) until the refund update of the exception workflow is wired to payouts.
 */
export async function refundException(ctx: PaymentContext, id: string, _address: string): Promise<never> {
  await loadException(ctx, id);
  throw new AppError('NotImplemented', 'Refunds are not available yet: they send the money back on chain and need on-chain payouts. Accept the exception, or leave it open.');
}
