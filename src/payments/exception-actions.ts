import { payeeOf } from '../chains/sweeper';
import { WithStartWorkflowOperation, WorkflowIdConflictPolicy } from '@temporalio/client';
import { tokenContractsOf } from '../config';
import { findSession } from '../db/queries/checkout-sessions';
import { findDepositAddresses } from '../db/queries/deposit-addresses';
import {
  exceptionParties,
  findPaymentException,
  listExceptionsByStatus,
  type ExceptionParties,
  type PaymentExceptionRow,
} from '../db/queries/payment-exceptions';
import { listRefundPayouts, type PayoutRow } from '../db/queries/payouts';
import { checkRefundAddress } from '../domain/refund-address';
import { explorerUrlFor } from '../domain/explorers';
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

// The operators' side of exceptions. Every action runs in the exception's workflow
// (id = exception id) as an update, so it survives a worker crash like the rest of the payment.

/** The queue, each exception with whom it concerns (merchant, sender, token), so an operator can act on the list alone. */
export async function listExceptions(
  ctx: PaymentContext,
  status: ExceptionStatus | undefined,
  limit: number,
): Promise<(PaymentExceptionRow & { parties: ExceptionParties })[]> {
  const rows = await listExceptionsByStatus(ctx.db, status, limit);
  const parties = await exceptionParties(
    ctx.db,
    rows.map((r) => r.id),
  );
  const none: ExceptionParties = { merchantId: null, senders: [], asset: null, network: null, tokenContract: null };
  return rows.map((r) => ({ ...r, parties: parties.get(r.id) ?? none }));
}

async function loadException(ctx: PaymentContext, id: string): Promise<PaymentExceptionRow> {
  const exception = isExceptionId(id) ? await findPaymentException(ctx.db, id) : undefined;
  if (!exception) throw notFound('Exception');
  return exception;
}

/** The exception's run, started if it has none (closed, or recorded before runs existed). */
export function runOf(ctx: PaymentContext, exception: PaymentExceptionRow) {
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
    throw new AppError(
      'Conflict',
      `A ${exception.kind} exception cannot be accepted as the payment; only late or underpaid checkout payments can.`,
    );
  }
  if (exception.status === 'refunded') throw new AppError('Conflict', 'This exception was refunded.');
  // Accepted already: the run that accepted it carries the rest (its events, the link); a closed run
  // is not started again only to find the acceptance done.
  if (exception.status === 'accepted') {
    const session = await findSession(ctx.db, exception.paymentId);
    if (session) return { exception, result: { exceptionId: exception.id, paymentId: session.id, paymentStatus: session.status } };
  }
  const result = await callTemporal(
    ctx.temporal,
    exception.id,
    () => ctx.temporal.workflow.executeUpdateWithStart(acceptUpdate, { startWorkflowOperation: runOf(ctx, exception) }),
    'This exception cannot be accepted.',
  );
  return { exception: (await findPaymentException(ctx.db, exception.id))!, result };
}

/** Where a refund stands: planned, signed, broadcast, confirmed (the transfer's hash then), or failed. */
export interface RefundState {
  address: string;
  amount: string;
  status: PayoutRow['status'];
  /** Why the transfer back failed (status `failed`): the exception is open, and a new refund may be asked for. */
  failureReason: string | null;
  /** The transfer back, once confirmed (like a payout's transactionHash). */
  transactionHash: string | null;
  explorerUrl: string | null;
}

function refundState(rows: PayoutRow[]): RefundState | null {
  const refund = rows.find((r) => r.kind === 'refund');
  if (!refund) return null;
  const hash = refund.status === 'confirmed' ? refund.txHash : null;
  return {
    address: payeeOf(refund),
    amount: formatCrypto(BigInt(refund.amount)),
    status: refund.status,
    failureReason: refund.status === 'failed' ? refund.failureReason : null,
    transactionHash: hash,
    explorerUrl: hash ? explorerUrlFor(refund.network, hash) : null,
  };
}

/** The refund address the customer gave on a checkout session's page, if any. */
async function customerRefundAddress(ctx: PaymentContext, exception: PaymentExceptionRow): Promise<string | null> {
  if (exception.paymentKind !== 'checkout_session') return null;
  return (await findSession(ctx.db, exception.paymentId))?.refundAddress ?? null;
}

/** An exception's refund, if one was asked for (the operators' views). */
export async function findRefund(ctx: PaymentContext, exceptionId: string): Promise<RefundState | null> {
  return refundState(await listRefundPayouts(ctx.db, exceptionId));
}

/**
 * Where the money may go: checked before any workflow is touched, so a refused
 * address changes nothing (422). The zero address, a malformed or mistyped one, the treasury, a
 * token contract, any of our deposit addresses. The workflow's validator and the planning
 * activity check again.
 */
export async function checkedRefundAddress(ctx: PaymentContext, address: string) {
  const refused = (message: string) => new AppError('ValidationError', message, { details: [{ path: 'address', message }] });
  const alone = checkRefundAddress(address);
  if (!alone.ok) throw refused(alone.message);
  const ours = await findDepositAddresses(ctx.db, [alone.address]);
  const checked = checkRefundAddress(alone.address, {
    treasury: ctx.treasuryAddress ?? null,
    tokenContracts: tokenContractsOf(ctx.config.chains),
    // Every deposit address has its row (this payment's among them).
    isDepositAddress: ours.length > 0,
  });
  if (!checked.ok) throw refused(checked.message);
  return checked.address;
}

/**
 * Send an exception's money back on chain to `address`, by default the one the customer gave on the
 * checkout page: late, duplicate or
 * underpaid money that arrived at a checkout session's or simple order's deposit address. Runs in the exception's
 * workflow as an update that plans the transfer (payout rows, once) and answers; the run sends it,
 * and the exception becomes `refunded` with `payment.refunded` once the transfer is confirmed.
 * Idempotent: asking again answers the same refund; another address is a conflict while it is under
 * way. A refund whose transfer failed leaves the exception open: the next request plans a new one.
 */
/** How often, and how far apart, a refund asks again when the run answered with the plan that just failed. */
const STALE_PLAN_ATTEMPTS = 10;
const STALE_PLAN_WAIT_MS = 300;

export async function refundException(
  ctx: PaymentContext,
  id: string,
  address: string | undefined,
): Promise<{ exception: PaymentExceptionRow; refund: RefundState }> {
  const exception = await loadException(ctx, id);
  const given = address ?? (await customerRefundAddress(ctx, exception));
  if (!given) {
    const message = 'Give the address to send the money back to: the customer left none on the checkout page.';
    throw new AppError('ValidationError', message, { details: [{ path: 'address', message }] });
  }
  // The customer's address was checked when given; checked again, as the platform's addresses may have changed.
  const to = await checkedRefundAddress(ctx, given);
  const current = refundState(await listRefundPayouts(ctx.db, exception.id));
  const live = current && current.status !== 'failed' ? current : null;
  if (live && live.address !== to) throw new AppError('Conflict', `This exception is already being refunded to ${live.address}.`);
  if (!live) {
    if (!isRefundable(exception.kind)) {
      throw new AppError(
        'Conflict',
        `A ${exception.kind} exception cannot be refunded: only late, duplicate or underpaid money is held at the deposit address (overpaid money is part of the merchant's gross; unverified money never arrived).`,
      );
    }
    if (exception.status !== 'open') throw new AppError('Conflict', `This exception was ${exception.status}.`);
  }
  let refund: RefundState | null = null;
  for (let attempt = 1; ; attempt++) {
    await callTemporal(
      ctx.temporal,
      exception.id,
      () =>
        ctx.temporal.workflow.executeUpdateWithStart(refundUpdate, {
          args: [{ address: to }],
          startWorkflowOperation: runOf(ctx, exception),
        }),
      'This exception cannot be refunded.',
    );
    refund = await findRefund(ctx, exception.id);
    // Right after a transfer failed, the run may answer with that plan before it has taken the failure
    // in (the payout row says failed first): asked again a moment later, it plans anew. Bounded: a run
    // that still answers so is a conflict below.
    if (!(live === null && current && refund?.status === 'failed' && attempt < STALE_PLAN_ATTEMPTS)) break;
    await new Promise((resolve) => setTimeout(resolve, STALE_PLAN_WAIT_MS));
  }
  if (!refund) throw new AppError('Conflict', 'This exception cannot be refunded.');
  if (refund.address !== to) throw new AppError('Conflict', `This exception is already being refunded to ${refund.address}.`);
  return { exception: (await findPaymentException(ctx.db, exception.id))!, refund };
}
