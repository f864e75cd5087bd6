import { ApplicationFailure } from '@temporalio/activity';
import { tokenContractsOf, type ChainSettings } from '../config';
import type { Database } from '../db/client';
import { lockSession } from '../db/queries/checkout-sessions';
import { findDepositAddresses } from '../db/queries/deposit-addresses';
import { lockMerchant } from '../db/queries/merchants';
import {
  findPaymentRefund,
  insertPaymentRefund,
  lockPaymentRefund,
  refundedOfPayment,
  updatePaymentRefund,
} from '../db/queries/payment-refunds';
import { insertAuditRow } from '../db/queries/dashboard-audit';
import { insertPayoutsOnce, reopenFailedSettlement } from '../db/queries/payouts';
import { findTransaction } from '../db/queries/transactions';
import { newPayoutId } from '../domain/ids';
import { checkRefundAmount } from '../domain/payment-refund';
import { checkRefundAddress, REFUND_ADDRESS_REFUSED } from '../domain/refund-address';
import { payoutChains, payoutImpossible } from './payout-chains';
import { writePostings } from '../db/queries/ledger';
import { drawForRefund, refundDrawOf } from '../db/queries/merchant-balances';
import { outgoingFailed } from '../domain/balances';
import { AppError } from '../domain/errors';
import { formatCrypto } from '../domain/money';
import type { RecordedRefund, RefundRequest, RefundStanding } from '../workflows/payment-refund/messages';

// The side effects of a completed payment's refund workflow, each idempotent. Its first writes the
// refund's row, under the locks and checks of the use case that asked (src/payments/payment-refunds.ts);
// the plan writes its one payout (from the treasury, kind payment_refund, keyed by the refund's
// id so a retried plan finds it), and the payout machinery sends it exactly once.

export const REFUND_NOT_SENDABLE = 'RefundNotSendable';

export function createPaymentRefundActivities({ db, chains: settings }: { db: Database; chains: ChainSettings }) {
  const chains = payoutChains(settings);
  return {
    /**
     * The refund's row, written by its own run (id = the run's id) in one transaction: under the
     * payment's and the merchant's locks, what is left to refund of the payment checked, the amount
     * drawn from the merchant's balance (docs/settlement.md), the row, and the dashboard's audit line.
     * The same request again (a retried attempt, a double click with the same key) finds its row and
     * writes nothing; another request under the same id (a request key used for another amount or
     * address) is refused. Every refusal is typed for the asker's answer (FAILURE_CODES) and writes nothing.
     */
    async recordPaymentRefund(refundId: string, request: RefundRequest): Promise<RecordedRefund> {
      const requested = BigInt(request.amountMicro);
      return db.transaction(async (tx) => {
        const session = await lockSession(tx, request.paymentId);
        if (!session) throw ApplicationFailure.nonRetryable(`no payment ${request.paymentId}`, REFUND_NOT_SENDABLE);
        await lockMerchant(tx, session.merchantId);
        const earlier = await findPaymentRefund(tx, refundId);
        if (earlier) {
          if (earlier.paymentId !== session.id || earlier.amountMicro !== requested || earlier.address !== request.address)
            throw ApplicationFailure.nonRetryable('This request key was used for another refund of this payment.', 'Conflict');
          return { standing: earlier.status, repeated: true };
        }
        // Answered already as not done in time: writing it now would make a refund the asker was told
        // nothing about. The clock read here is the worker's; the API waits past `notAfter` before it answers.
        if (Date.now() > request.notAfter)
          throw ApplicationFailure.nonRetryable('The payment engine did not answer in time; nothing was refunded.', 'Unavailable');
        const transaction = await findTransaction(tx, session.id);
        const amount = checkRefundAmount({
          grossMicro: transaction?.grossMicro ?? 0n,
          refundedMicro: await refundedOfPayment(tx, session.id),
          requestedMicro: requested,
        });
        if (!amount.ok)
          throw ApplicationFailure.create({
            message: amount.message,
            type: 'ValidationError',
            nonRetryable: true,
            details: [{ details: [{ path: 'amount', message: amount.message }] }],
          });
        const owner = { merchantId: session.merchantId, asset: session.destinationAsset, network: session.network };
        // The merchant's own balance pays, drawn under the merchant's lock, so refunds asked at once
        // never take more than it holds.
        await drawForRefund(tx, { ...owner, refundId, paymentId: session.id, requestedMicro: amount.amountMicro }).catch((err: unknown) => {
          throw err instanceof AppError ? ApplicationFailure.nonRetryable(err.message, err.code) : err;
        });
        await insertPaymentRefund(tx, {
          id: refundId,
          paymentId: session.id,
          ...owner,
          amountMicro: amount.amountMicro,
          address: request.address,
          requestedBy: request.requestedBy,
          requestKey: request.requestKey,
        });
        if (request.audit)
          await insertAuditRow(tx, {
            merchantId: request.audit.merchantId,
            actorUserId: request.audit.userId,
            actorEmail: request.audit.email,
            action: 'refund.requested',
            target: refundId,
            details: { paymentId: session.id, amount: formatCrypto(amount.amountMicro), address: request.address },
            ip: request.audit.ip,
          });
        return { standing: 'requested' as const, repeated: false };
      });
    },

    /** Where the refund's row stands, null without one: a run whose request never reached it looks for itself. */
    async refundStanding(refundId: string): Promise<RefundStanding | null> {
      return (await findPaymentRefund(db, refundId))?.status ?? null;
    },

    /** The refund's payout (written once), as ids in sending order. Its address is checked again against what the platform owns. */
    async planPaymentRefund(refundId: string): Promise<{ payoutIds: string[] }> {
      const refund = await findPaymentRefund(db, refundId);
      if (!refund) throw ApplicationFailure.nonRetryable(`no refund ${refundId}`, REFUND_NOT_SENDABLE);
      const alone = checkRefundAddress(refund.address);
      if (!alone.ok) throw ApplicationFailure.nonRetryable(alone.message, REFUND_ADDRESS_REFUSED);
      const ours = await findDepositAddresses(db, [alone.address]);
      const checked = checkRefundAddress(alone.address, {
        treasury: chains.treasury(),
        tokenContracts: tokenContractsOf(settings),
        isDepositAddress: ours.length > 0,
      });
      if (!checked.ok) throw ApplicationFailure.nonRetryable(checked.message, REFUND_ADDRESS_REFUSED);
      const token = chains.client(refund.network).tokens.find((t) => t.asset === refund.asset)?.address;
      if (!token) throw payoutImpossible(`${refund.asset} is not configured on ${refund.network}`);
      const rows = await insertPayoutsOnce(db, [
        {
          id: newPayoutId(),
          paymentId: refund.paymentId,
          kind: 'payment_refund',
          refundId: refund.id,
          network: refund.network,
          asset: refund.asset,
          token,
          fromAddress: chains.treasury(),
          toAddress: checked.address,
          amount: refund.amountMicro.toString(),
        },
      ]);
      await updatePaymentRefund(db, refund.id, { payoutId: rows[0]!.id });
      return { payoutIds: rows.map((r) => r.id) };
    },

    /** A refund whose transfer stopped for a reason no retry fixes: failed, with the reason, until an operator retries it. */
    async paymentRefundNotSent(refundId: string, reason: string): Promise<void> {
      await db.transaction(async (tx) => {
        const refund = await lockPaymentRefund(tx, refundId);
        if (!refund || refund.status !== 'requested') return;
        await updatePaymentRefund(tx, refundId, { status: 'failed', failureReason: reason });
        // What the refund drew is the merchant's balance again.
        const draw = await refundDrawOf(tx, refundId);
        if (draw)
          await writePostings(tx, [
            outgoingFailed({
              ...draw,
              network: refund.network,
              asset: refund.asset,
              merchantId: refund.merchantId,
              paymentId: refund.paymentId,
            }),
          ]);
      });
    },

    /**
     * An operator's retry of a failed refund: asked for again only if it still passes the checks it
     * passed when it was asked for (the use case's, under the same locks in the same order): the
     * payment's refundable rest still holds it (another refund may have taken it meanwhile), and the
     * merchant's balance holds it again (it is drawn again). Then its failed payout is reopened. A refusal is the
     * operator's answer (409 with the reason); the refund stays failed and the run keeps waiting.
     */
    async reopenRefund(refundId: string): Promise<void> {
      await db.transaction(async (tx) => {
        const found = await findPaymentRefund(tx, refundId);
        if (!found) throw ApplicationFailure.nonRetryable(`no refund ${refundId}`, REFUND_NOT_SENDABLE);
        await lockSession(tx, found.paymentId);
        await lockMerchant(tx, found.merchantId);
        const refund = (await lockPaymentRefund(tx, refundId))!;
        if (refund.status === 'failed') {
          const transaction = await findTransaction(tx, refund.paymentId);
          const amount = checkRefundAmount({
            grossMicro: transaction?.grossMicro ?? 0n,
            refundedMicro: await refundedOfPayment(tx, refund.paymentId, refund.id),
            requestedMicro: refund.amountMicro,
          });
          if (!amount.ok) throw ApplicationFailure.nonRetryable(amount.message, REFUND_NOT_SENDABLE);
          const owner = { merchantId: refund.merchantId, asset: refund.asset, network: refund.network, except: refund.id };
          await drawForRefund(tx, {
            ...owner,
            refundId: refund.id,
            paymentId: refund.paymentId,
            requestedMicro: refund.amountMicro,
          }).catch((err: unknown) => {
            throw err instanceof AppError ? ApplicationFailure.nonRetryable(err.message, REFUND_NOT_SENDABLE) : err;
          });
          await updatePaymentRefund(tx, refundId, { status: 'requested', failureReason: null });
        }
        await reopenFailedSettlement(tx, refund.paymentId, refund.id);
      });
    },
  };
}

export type PaymentRefundActivities = ReturnType<typeof createPaymentRefundActivities>;
