import { WithStartWorkflowOperation, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { findSession, type CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { findPaymentRefund, listPaymentRefunds, type PaymentRefundRow } from '../db/queries/payment-refunds';
import { findTransaction } from '../db/queries/transactions';
import { AppError, notFound } from '../domain/errors';
import { explorerUrlFor } from '../domain/explorers';
import { isCanonicalPaymentId, keyedRefundId, newRefundId } from '../domain/ids';
import { AmountError, formatCrypto, parseCrypto } from '../domain/money';
import { refundableMicro } from '../domain/payment-refund';
import {
  PAYMENT_REFUND_WORKFLOW,
  requestRefundUpdate,
  type PaymentRefundInput,
  type RefundRequest,
} from '../workflows/payment-refund/messages';
import { MerchantIdKey } from '../workflows/search-attributes';
import type { PaymentContext } from './context';
import { checkedRefundAddress } from './exception-actions';
import type { DashboardActor } from '../accounts/dashboard-audit';
import { callTemporal, TEMPORAL_CALL_DEADLINE_MS } from './temporal-call';

// The refund of a completed payment, wholly or partly, the one use case behind the
// operators' route and CLI and the merchant's dashboard. Everything is checked before anything is
// written (the address like an exception's refund's, here; the amount within what is left to refund
// and the merchant's balance holding it, by the refund's run under the payment's and the merchant's
// row locks, so two refunds asked at once cannot both take the same rest or the same balance); the
// refund's own workflow (id = refund id) records it and sends it from the treasury, exactly once
// (domain/payment-refund.ts says why the treasury).

/** Of the call's deadline, what is kept back for the run's commit and its answer to reach this process. */
const RECORD_RESERVE_MS = 1000;

/** A refund as its faces show it. */
export interface RefundView {
  id: string;
  paymentId: string;
  amount: string;
  asset: string;
  network: string;
  address: string;
  status: PaymentRefundRow['status'];
  failureReason: string | null;
  transactionHash: string | null;
  explorerUrl: string | null;
  requestedBy: string;
  createdAt: string;
  refundedAt: string | null;
}

export function viewRefund(r: PaymentRefundRow): RefundView {
  return {
    id: r.id,
    paymentId: r.paymentId,
    amount: formatCrypto(r.amountMicro),
    asset: r.asset,
    network: r.network,
    address: r.address,
    status: r.status,
    failureReason: r.failureReason,
    transactionHash: r.txHash,
    explorerUrl: r.txHash ? explorerUrlFor(r.network, r.txHash) : null,
    requestedBy: r.requestedBy,
    createdAt: r.createdAt.toISOString(),
    refundedAt: r.refundedAt ? r.refundedAt.toISOString() : null,
  };
}

/** A payment's refunds and what is left to refund of it (the form's default amount). */
export interface PaymentRefunds {
  refundable: boolean;
  /** G − refunded (every refund but a failed one), 6 decimals. */
  refundableAmount: string;
  refunds: RefundView[];
}

const invalid = (path: string, message: string) => new AppError('ValidationError', message, { details: [{ path, message }] });

/** Only a completed payment whose money was proven at its deposit address and paid out on chain is refunded from the treasury. */
function refusedFor(session: CheckoutSessionRow): string | null {
  if (session.status !== 'completed') return `Only a completed payment can be refunded; this one is ${session.status}.`;
  if (session.verification !== 'chain' || !session.depositAddress)
    return 'Only a payment proven on chain at its deposit address can be refunded on chain.';
  return null;
}

export async function paymentRefunds(ctx: PaymentContext, session: CheckoutSessionRow): Promise<PaymentRefunds> {
  const [transaction, rows] = await Promise.all([findTransaction(ctx.db, session.id), listPaymentRefunds(ctx.db, session.id)]);
  const refunded = rows.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + r.amountMicro, 0n);
  const rest = refundableMicro({ grossMicro: transaction?.grossMicro ?? 0n, refundedMicro: refunded });
  return { refundable: refusedFor(session) === null && rest > 0n, refundableAmount: formatCrypto(rest), refunds: rows.map(viewRefund) };
}

/**
 * Refund `amount` (a decimal string of the payment's stablecoin) of a completed payment to `address`
 * (by default the refund address the customer left on the checkout page). `merchantId` scopes it to
 * the merchant's own payment (the dashboard; another merchant's is 404); absent for operators.
 * What needs no lock is checked here; the refund's own run (id = refund id) is then started with the
 * request and records it, or refuses it, before this answers (update-with-start: workflows/payment-refund),
 * so a refund row never exists without its run. `payment.refunded` fires when the transfer is confirmed.
 */
export async function refundPayment(
  ctx: PaymentContext,
  input: {
    paymentId: string;
    merchantId?: string;
    amount: string;
    address?: string;
    requestedBy: string;
    actor?: DashboardActor;
    /** The asker's key for this request: the same key again answers the refund it made (a double click is one refund). */
    requestKey?: string;
  },
): Promise<PaymentRefundRow> {
  const found = isCanonicalPaymentId(input.paymentId) ? await findSession(ctx.db, input.paymentId) : undefined;
  if (!found || (input.merchantId !== undefined && found.merchantId !== input.merchantId)) throw notFound('Payment');
  const refused = refusedFor(found);
  if (refused) throw new AppError('Conflict', refused);
  let requested: bigint;
  try {
    requested = parseCrypto(input.amount);
  } catch (err) {
    if (err instanceof AmountError) throw invalid('amount', 'The amount must be a decimal with at most 6 decimals, like 12.5.');
    throw err;
  }
  const given = input.address ?? found.refundAddress;
  if (!given) throw invalid('address', 'Give the address to send the money back to: the customer left none on the checkout page.');
  const address = await checkedRefundAddress(ctx, given);

  // The same key on the same payment is the same refund, and so the same run.
  const refundId = input.requestKey === undefined ? newRefundId() : keyedRefundId(found.id, input.requestKey);
  const deadline = Date.now() + TEMPORAL_CALL_DEADLINE_MS;
  const run: PaymentRefundInput = { refundId, paymentId: found.id };
  const request: RefundRequest = {
    paymentId: found.id,
    amountMicro: requested.toString(),
    address,
    requestedBy: input.requestedBy,
    requestKey: input.requestKey ?? null,
    audit: input.actor
      ? { userId: input.actor.userId, email: input.actor.email, merchantId: input.actor.merchantId, ip: input.actor.ip }
      : null,
    // Kept back from the deadline by what a commit and its answer may take, so a request the run
    // records is never one this call has answered as not done.
    notAfter: deadline - RECORD_RESERVE_MS,
  };
  const recorded = await callTemporal(
    ctx.temporal,
    refundId,
    () =>
      ctx.temporal.workflow.executeUpdateWithStart(requestRefundUpdate, {
        args: [request],
        startWorkflowOperation: new WithStartWorkflowOperation(PAYMENT_REFUND_WORKFLOW, {
          workflowId: refundId,
          taskQueue: ctx.config.temporal.taskQueue,
          args: [run],
          // The same key while its run is open reaches that run; after it closed, a new run finds the
          // row (or, after a refusal, records it anew).
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          typedSearchAttributes: [{ key: MerchantIdKey, value: found.merchantId }],
        }),
      }),
    'This refund cannot be made.',
    deadline,
  );
  const refund = (await findPaymentRefund(ctx.db, refundId))!;
  if (!recorded.repeated)
    ctx.log?.('refund.requested', {
      paymentId: refund.paymentId,
      merchantId: refund.merchantId,
      refundId: refund.id,
      amount: formatCrypto(refund.amountMicro),
      asset: refund.asset,
      network: refund.network,
      requestedBy: refund.requestedBy,
    });
  return refund;
}
