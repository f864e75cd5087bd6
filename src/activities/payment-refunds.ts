import { ApplicationFailure } from '@temporalio/activity';
import { tokenContractsOf, type ChainSettings } from '../config';
import type { Database } from '../db/client';
import { lockSession } from '../db/queries/checkout-sessions';
import { findDepositAddresses } from '../db/queries/deposit-addresses';
import { lockMerchant } from '../db/queries/merchants';
import { findPaymentRefund, lockPaymentRefund, refundedOfPayment, updatePaymentRefund } from '../db/queries/payment-refunds';
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

// The side effects of a completed payment's refund workflow, each idempotent. The
// refund row was written by the use case (src/payments/payment-refunds.ts) with its amount checked;
// the plan here writes its one payout (from the treasury, kind payment_refund, keyed by the refund's
// id so a retried plan finds it), and the payout machinery sends it exactly once.

export const REFUND_NOT_SENDABLE = 'RefundNotSendable';

export function createPaymentRefundActivities({ db, chains: settings }: { db: Database; chains: ChainSettings }) {
  const chains = payoutChains(settings);
  return {
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
