import { WithStartWorkflowOperation, WorkflowIdConflictPolicy, WorkflowUpdateFailedError } from '@temporalio/client';
import { findPaymentException, listExceptionsByStatus, type PaymentExceptionRow } from '../db/queries/payment-exceptions';
import { listRefundPayouts, type PayoutRow } from '../db/queries/payouts';
import { parseEvmAddress } from '../domain/evm-address';
import { explorerUrlFor } from '../domain/deposit-fact';
import { isAcceptable, isExceptionId, isRefundable, type ExceptionStatus } from '../domain/exceptions';
import { AppError, notFound } from '../domain/errors';
import { formatCrypto } from '../domain/money';
import {
  acceptUpdate,
  PAYMENT_EXCEPTION_WORKFLOW,
  refundUpdate,
  type AcceptResult,
  type PaymentExceptionInput,
} from '../workflows/payment-exception/messages';
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

/** The exception's run, started if it has none (closed, or recorded before runs existed). */
function runOf(ctx: PaymentContext, exception: PaymentExceptionRow) {
  const input: PaymentExceptionInput = { exceptionId: exception.id, paymentId: exception.paymentId };
  return new WithStartWorkflowOperation(PAYMENT_EXCEPTION_WORKFLOW, {
    workflowId: exception.id,
    taskQueue: ctx.config.temporal.taskQueue,
    args: [input],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
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
  try {
    const result = await callTemporal(ctx.temporal, exception.id, () => ctx.temporal.workflow.executeUpdateWithStart(acceptUpdate, { startWorkflowOperation: runOf(ctx, exception) }));
    return { exception: (await findPaymentException(ctx.db, exception.id))!, result };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || (err instanceof AppError && err.code === 'Conflict')) {
      throw new AppError('Conflict', 'This exception cannot be accepted: its payment is no longer in a state that can be completed.');
    }
    throw err;
  }
}

/** Where a refund stands: planned, signed, broadcast, confirmed (the transfer's hash then), or failed. */
export interface RefundState {
  address: string;
  amount: string;
  status: PayoutRow['status'];
  /** The transfer back, once confirmed (like a payout's transactionHash). */
  transactionHash: string | null;
  explorerUrl: string | null;
}

function refundState(rows: PayoutRow[]): RefundState | null {
  const refund = rows.find((r) => r.kind === 'refund');
  if (!refund) return null;
  const hash = refund.status === 'confirmed' ? refund.txHash : null;
  return {
    address: refund.toAddress,
    amount: formatCrypto(BigInt(refund.amount)),
    // The gas for the deposit address comes first: until it is confirmed, the refund waits for it.
    status: refund.status,
    transactionHash: hash,
    explorerUrl: hash ? explorerUrlFor(refund.network, hash) : null,
  };
}

/** An exception's refund, if one was asked for (the operators' views). */
export async function findRefund(ctx: PaymentContext, exceptionId: string): Promise<RefundState | null> {
  return refundState(await listRefundPayouts(ctx.db, exceptionId));
}

/**
 * Send an exception's money back on chain to `address` (decisions §12): late, duplicate or
 * underpaid money that arrived at a checkout session's or simple order's deposit address. Runs in the exception's
 * workflow as an update that plans the transfer (payout rows, once) and answers; the run sends it,
 * and the exception becomes `refunded` with `payment.refunded` once the transfer is confirmed.
 * Idempotent: asking again answers the same refund; another address is a conflict.
 */
export async function refundException(ctx: PaymentContext, id: string, address: string): Promise<{ exception: PaymentExceptionRow; refund: RefundState }> {
  const exception = await loadException(ctx, id);
  const to = parseEvmAddress(address);
  if (!to) throw new AppError('ValidationError', 'address must be an EVM address (0x and 40 hex digits; a mixed-case one must carry its EIP-55 checksum)', { details: [{ path: 'address', message: 'not an EVM address' }] });
  const existing = refundState(await listRefundPayouts(ctx.db, exception.id));
  if (existing && existing.address !== to) throw new AppError('Conflict', `This exception is already being refunded to ${existing.address}.`);
  if (!existing) {
    if (!isRefundable(exception.kind)) {
      throw new AppError('Conflict', `A ${exception.kind} exception cannot be refunded: only late, duplicate or underpaid money is held at the deposit address (overpaid money is part of the merchant's gross; unverified money never arrived).`);
    }
    if (exception.status !== 'open') throw new AppError('Conflict', `This exception was ${exception.status}.`);
  }
  try {
    await callTemporal(ctx.temporal, exception.id, () =>
      ctx.temporal.workflow.executeUpdateWithStart(refundUpdate, { args: [{ address: to }], startWorkflowOperation: runOf(ctx, exception) }),
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw new AppError('Conflict', `This exception cannot be refunded: ${causeOf(err)}.`);
    throw err;
  }
  const refund = await findRefund(ctx, exception.id);
  if (refund && refund.address !== to) throw new AppError('Conflict', `This exception is already being refunded to ${refund.address}.`);
  return { exception: (await findPaymentException(ctx.db, exception.id))!, refund: refund! };
}

/** The innermost failure's message: what the activity or the validator refused. */
function causeOf(err: Error): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : 'refused';
}
