import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { findSession, lockSession, type CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { lockMerchant } from '../db/queries/merchants';
import {
  findPaymentRefund,
  findRefundByRequestKey,
  insertPaymentRefund,
  listPaymentRefunds,
  listUnstartedRefunds,
  refundedOfPayment,
  type PaymentRefundRow,
} from '../db/queries/payment-refunds';
import { findTransaction } from '../db/queries/transactions';
import { drawForRefund } from '../db/queries/merchant-balances';
import { AppError, notFound } from '../domain/errors';
import { explorerUrlFor } from '../domain/explorers';
import { isCanonicalPaymentId, newRefundId } from '../domain/ids';
import { AmountError, formatCrypto, parseCrypto } from '../domain/money';
import { checkRefundAmount, refundableMicro } from '../domain/payment-refund';
import { PAYMENT_REFUND_WORKFLOW, type PaymentRefundInput } from '../workflows/payment-refund/messages';
import { MerchantIdKey } from '../workflows/search-attributes';
import type { PaymentContext } from './context';
import { checkedRefundAddress } from './exception-actions';
import { recordAudit, type DashboardActor } from '../accounts/dashboard-audit';
import { callTemporal, WorkflowAlreadyStartedError } from './temporal-call';

// The refund of a completed payment, wholly or partly, the one use case behind the
// operators' route and CLI and the merchant's dashboard. Everything is checked before anything is
// written (the amount within what is left to refund, the merchant's balance holding it, the address
// like an exception's refund's), under the payment's and the merchant's row locks so two refunds
// asked at once cannot both take the same rest or the same balance; then the refund's own workflow
// (id = refund id) sends it from the treasury, exactly once (domain/payment-refund.ts says why the treasury).

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
 * Answers once the refund is written and its workflow started (a process that dies between the two
 * leaves the start to the API's sweep: sweepUnstartedRefunds); `payment.refunded` fires when the
 * transfer is confirmed.
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

  const made = await ctx.db.transaction(async (tx) => {
    const session = (await lockSession(tx, found.id))!;
    await lockMerchant(tx, session.merchantId);
    if (input.requestKey) {
      const earlier = await findRefundByRequestKey(tx, session.id, input.requestKey);
      if (earlier && (earlier.amountMicro !== requested || earlier.address !== address))
        throw new AppError('Conflict', 'This request key was used for another refund of this payment.');
      if (earlier) return { row: earlier, repeated: true };
    }
    const transaction = await findTransaction(tx, session.id);
    const amount = checkRefundAmount({
      grossMicro: transaction?.grossMicro ?? 0n,
      refundedMicro: await refundedOfPayment(tx, session.id),
      requestedMicro: requested,
    });
    if (!amount.ok) throw invalid('amount', amount.message);
    const owner = { merchantId: session.merchantId, asset: session.destinationAsset, network: session.network };
    const id = newRefundId();
    // The merchant's own balance pays (docs/settlement.md), drawn now under the merchant's lock, so
    // refunds asked at once never take more than it holds.
    await drawForRefund(tx, { ...owner, refundId: id, paymentId: session.id, requestedMicro: amount.amountMicro });
    const row = await insertPaymentRefund(tx, {
      id,
      paymentId: session.id,
      merchantId: session.merchantId,
      asset: session.destinationAsset,
      network: session.network,
      amountMicro: amount.amountMicro,
      address,
      requestedBy: input.requestedBy,
      requestKey: input.requestKey ?? null,
    });
    // From the dashboard: its audit line in the same transaction.
    if (input.actor)
      await recordAudit(tx, input.actor, 'refund.requested', row.id, {
        paymentId: row.paymentId,
        amount: formatCrypto(row.amountMicro),
        address: row.address,
      });
    return { row, repeated: false };
  });
  const refund = made.row;
  if (!made.repeated)
    ctx.log?.('refund.requested', {
      paymentId: refund.paymentId,
      merchantId: refund.merchantId,
      refundId: refund.id,
      amount: formatCrypto(refund.amountMicro),
      asset: refund.asset,
      network: refund.network,
      requestedBy: refund.requestedBy,
    });
  await startRefundRun(ctx, refund);
  return (await findPaymentRefund(ctx.db, refund.id))!;
}

/**
 * The refund's run (id = refund id, with its merchant's `MerchantId` for the Temporal UI). A run that
 * exists already, running or closed, is left as it is, so a repeated start never sends twice; only
 * one that failed, was terminated or timed out is started again (its plan and its transfer are
 * idempotent: the payout is keyed by the refund). Returns whether this call started it.
 */
async function startRefundRun(ctx: PaymentContext, refund: Pick<PaymentRefundRow, 'id' | 'paymentId' | 'merchantId'>): Promise<boolean> {
  const input: PaymentRefundInput = { refundId: refund.id, paymentId: refund.paymentId };
  try {
    await callTemporal(
      ctx.temporal,
      refund.id,
      () =>
        ctx.temporal.workflow.start(PAYMENT_REFUND_WORKFLOW, {
          workflowId: refund.id,
          taskQueue: ctx.config.temporal.taskQueue,
          args: [input],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
          typedSearchAttributes: [{ key: MerchantIdKey, value: refund.merchantId }],
        }),
      'This refund cannot be sent.',
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowAlreadyStartedError) return false;
    throw err;
  }
}

/**
 * The refunds whose start was cut short (the API process died between the refund's row and its run):
 * `requested`, no payout planned, older than `olderThanSeconds`. Each one's run is started with its
 * deterministic id; one that exists already is left as it is, so several API processes may sweep at
 * once and a run merely slow to plan is never doubled. Without this such a refund would stay
 * `requested` with no run, counting against its payment's refundable rest, its amount drawn from its merchant's balance.
 */
export async function sweepUnstartedRefunds(ctx: PaymentContext, olderThanSeconds: number): Promise<{ started: number }> {
  let started = 0;
  for (const refund of await listUnstartedRefunds(ctx.db, olderThanSeconds)) {
    if (await startRefundRun(ctx, refund)) started++;
  }
  return { started };
}
