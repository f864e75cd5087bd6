import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/client';
import { readPosting, writePostings } from '../db/queries/ledger';
import { resolvePaymentException } from '../db/queries/payment-exceptions';
import { updatePaymentRefund } from '../db/queries/payment-refunds';
import { confirmPayoutAndPost, confirmPayoutOnce } from '../db/queries/payout-confirmations';
import { findPayout, lockPayout, updatePayout, type PayoutRow } from '../db/queries/payouts';
import { outgoingConfirmed } from '../domain/balances';
import {
  isSettlementPayout,
  movedPostingOf,
  payoutConfirmed,
  payoutFee,
  payoutFeeMinedAgain,
  payoutRevertedFee,
  payoutUndone,
  type ConfirmedPayout,
  type Posting,
} from '../domain/ledger';
import { payoutImpossible, type PayoutChains } from './payout-chains';
import type { BatchLookups, PayoutLogger } from './payout-steps';
import { confirmSettlementPayout } from './settlement-confirmation';

// The last step of a payout (payout-steps.ts): what its receipt decides, written once whatever
// attempt gets there first. Confirmed: the row and its ledger postings (and the refund or exception
// it settles) together; reverted: the row failed and its gas posted.

export const missingPayout = (id: string) => payoutImpossible(`no payout ${id}`);

/** A payout whose transaction reverted on chain: final at once (the receipt is the chain's word). */
export class RevertedPayout extends Error {
  constructor(
    readonly payoutId: string,
    readonly reason: string,
    /** Whether this attempt marked it failed (another attempt may have first). */
    readonly marked: boolean,
  ) {
    super(reason);
  }
}
export const revertedFailure = (e: RevertedPayout) =>
  ApplicationFailure.nonRetryable(`payout ${e.payoutId} failed: ${e.reason}`, 'PayoutReverted');

/** A payout's confirmation and its revert, for the steps of payoutSteps. */
export function payoutConfirmation({ db, chains, logPayout }: { db: Database; chains: PayoutChains; logPayout: PayoutLogger }) {
  /** Records the confirmation once; returns the row as it now stands (another attempt may have confirmed it, or replaced its transaction). */
  async function confirm(row: PayoutRow, receipt: { blockNumber: bigint; feeWei: bigint }, lookups: BatchLookups): Promise<PayoutRow> {
    if (isSettlementPayout(row)) {
      const outcome = await confirmSettlementPayout(db, row, receipt, await lookups.itemsOf(row));
      if (outcome.confirmedNow) await logPayout('payout.confirmed', outcome.row, lookups, { blockNumber: receipt.blockNumber.toString() });
      return outcome.row;
    }
    const merchantId = await lookups.merchantOf(row.paymentId);
    // A call of the sweeper's `forward` (an order's payout, an exception's refund): the money left the deposit it names.
    const forwardedFrom = row.callData ? ((await lookups.itemsOf(row))[0]?.depositAddress ?? null) : null;
    // A transfer between two accounts in one statement (confirmPayoutAndPost), the postings made from
    // the row as this attempt holds it (what they name never changes for its transaction, `txHash`).
    // Refunds resolve or update other rows too: one transaction below.
    if (!OTHER_ROWS_AT_CONFIRMATION.has(row.kind)) {
      const changes = { blockNumber: receipt.blockNumber.toString(), feeWei: receipt.feeWei.toString(), confirmedAt: new Date() };
      const confirmed: PayoutRow = { ...row, ...changes, status: 'confirmed' };
      const txHash = row.txHash!;
      const confirmedNow = await confirmPayoutAndPost(db, {
        id: row.id,
        txHash,
        changes,
        postings: payoutConfirmed(
          { ...confirmed, merchantId, amount: BigInt(row.amount), txHash, feeWei: receipt.feeWei, forwardedFrom },
          chains.treasury(),
        ),
      });
      if (!confirmedNow) {
        // Confirmed by another attempt, or its transaction replaced: the row as it stands.
        const current = await findPayout(db, row.id);
        if (!current) throw missingPayout(row.id);
        return current;
      }
      await logPayout('payout.confirmed', confirmed, lookups, { blockNumber: receipt.blockNumber.toString() });
      return confirmed;
    }
    const outcome = await db.transaction(async (tx) => {
      const changes = { blockNumber: receipt.blockNumber.toString(), feeWei: receipt.feeWei.toString(), confirmedAt: new Date() };
      const updated = await confirmPayoutOnce(tx, row.id, row.txHash!, changes);
      if (!updated) {
        // Confirmed by another attempt, or its transaction replaced: the row as it stands.
        const current = await findPayout(tx, row.id);
        if (!current) throw missingPayout(row.id);
        return current;
      }
      const confirmed = {
        ...updated,
        merchantId,
        amount: BigInt(updated.amount),
        txHash: updated.txHash!,
        feeWei: receipt.feeWei,
        forwardedFrom,
      };
      await writePostings(tx, confirmedPostings(confirmed, chains.treasury()));
      // A completed payment's refund is done with its transfer, in the same transaction.
      if (row.kind === 'payment_refund' && updated.refundId)
        await updatePaymentRefund(tx, updated.refundId, {
          status: 'refunded',
          payoutId: updated.id,
          txHash: updated.txHash,
          failureReason: null,
          refundedAt: new Date(),
        });
      // The money is back with the customer: the exception is resolved with the transfer that did it.
      if (row.kind === 'refund' && updated.exceptionId) await resolvePaymentException(tx, updated.exceptionId, 'refunded');
      return { row: updated, confirmedNow: true };
    });
    if (!('confirmedNow' in outcome)) return outcome;
    await logPayout('payout.confirmed', outcome.row, lookups, { blockNumber: receipt.blockNumber.toString() });
    return outcome.row;
  }

  /**
   * A reverted transaction moved nothing but cost its sender the gas: the row is failed with its block
   * and fee (so a retry may sign it anew: its nonce is used up), and the fee posted, once.
   */
  async function markReverted(
    row: PayoutRow,
    receipt: { blockNumber: bigint; blockHash: string; feeWei: bigint },
  ): Promise<RevertedPayout> {
    const reason = `its transaction ${row.txHash} reverted in block ${receipt.blockNumber}`;
    const marked = await db.transaction(async (tx) => {
      const locked = await lockPayout(tx, row.id);
      if (!locked || locked.txHash !== row.txHash || locked.status === 'failed' || locked.status === 'confirmed') return false;
      await updatePayout(tx, row.id, {
        status: 'failed',
        failureReason: reason,
        blockNumber: receipt.blockNumber.toString(),
        feeWei: receipt.feeWei.toString(),
      });
      // A payout confirmed once, whose block a reorg took, mined again reverted: what its confirmation
      // posted is undone, and its fee is what the posted one differs by (its transaction was mined once).
      const posted = locked.confirmedAt ? await readPosting(tx, movedPostingOf(locked)) : undefined;
      await writePostings(
        tx,
        locked.confirmedAt
          ? [
              ...(posted ? [payoutUndone(posted)] : []),
              ...payoutFeeMinedAgain({
                ...locked,
                merchantId: '',
                amount: BigInt(locked.amount),
                txHash: locked.txHash!,
                feeWei: receipt.feeWei,
                postedFeeWei: BigInt(locked.feeWei ?? 0),
                blockHash: receipt.blockHash,
              }),
            ]
          : [payoutRevertedFee({ ...locked, txHash: locked.txHash!, feeWei: receipt.feeWei })],
      );
      return true;
    });
    return new RevertedPayout(row.id, reason, marked);
  }

  return { confirm, markReverted };
}

/** Kinds whose confirmation changes another row (the exception, the refund). */
const OTHER_ROWS_AT_CONFIRMATION: ReadonlySet<PayoutRow['kind']> = new Set(['refund', 'payment_refund']);

/**
 * A confirmed payout's postings: most move money between two accounts (domain/ledger.ts); a completed
 * payment's refund was drawn from the merchant's balance into `outgoing` when it was asked for, and
 * leaves it now. Each with the gas its sender paid.
 */
function confirmedPostings(p: ConfirmedPayout & { refundId: string | null }, treasury: string): Posting[] {
  if (p.kind !== 'payment_refund') return payoutConfirmed(p, treasury);
  if (!p.refundId) throw payoutImpossible(`payout ${p.id} names no refund`);
  const common = { paymentId: p.paymentId, merchantId: p.merchantId, asset: p.asset, network: p.network, txHash: p.txHash };
  return [outgoingConfirmed({ ...common, outgoingId: p.refundId, treasury: p.fromAddress, amountMicro: p.amount }), payoutFee(p)].filter(
    (posting) => posting.lines.length > 0,
  );
}
