import type { Database } from '../db/client';
import { writePostings } from '../db/queries/ledger';
import { confirmPayoutOnce } from '../db/queries/payout-confirmations';
import { findPayout, type PayoutRow } from '../db/queries/payouts';
import { clearFailedSettlementRows, merchantPaidBy, listPayoutItems } from '../db/queries/settlement-payouts';
import { setPayoutReference } from '../db/queries/transactions';
import { outgoingConfirmed, sweepConfirmed } from '../domain/balances';
import { explorerUrlFor } from '../domain/explorers';
import { payoutFee } from '../domain/ledger';
import { payoutImpossible } from './payout-chains';

// A confirmed sweep or merchant payout of a settlement run (docs/settlement.md), booked once: the
// payout steps (payout-confirmation.ts) hand its receipt here.

/** The merchant a batched payout pays: its payments' merchant. */
export async function merchantOfPayout(db: Database, payoutId: string): Promise<string> {
  const merchantId = await merchantPaidBy(db, payoutId);
  if (!merchantId) throw payoutImpossible(`payout ${payoutId} pays no known payment`);
  return merchantId;
}

type Items = Awaited<ReturnType<typeof listPayoutItems>>;

/**
 * A confirmed sweep or batched payout, booked once in one database transaction: a sweep moves each
 * deposit's money to the treasury; a payout's money left the treasury for the merchant, and each of
 * its payments now names the payout's transaction. Returns the row as it stands, and whether this
 * call confirmed it (another attempt may have first). `known`: its items, when the caller read them.
 */
export async function confirmSettlementPayout(
  db: Database,
  row: PayoutRow,
  receipt: { blockNumber: bigint; feeWei: bigint },
  known?: Items,
): Promise<{ row: PayoutRow; confirmedNow: boolean }> {
  const items = known ?? (await listPayoutItems(db, row.id));
  const merchantId = row.kind === 'merchant' ? (items[0]?.merchantId ?? (await merchantOfPayout(db, row.id))) : '';
  return db.transaction(async (tx) => {
    const changes = { blockNumber: receipt.blockNumber.toString(), feeWei: receipt.feeWei.toString(), confirmedAt: new Date() };
    const updated = await confirmPayoutOnce(tx, row.id, row.txHash!, changes);
    if (!updated) {
      const current = await findPayout(tx, row.id);
      if (!current) throw payoutImpossible(`no payout ${row.id}`);
      return { row: current, confirmedNow: false };
    }
    const txHash = updated.txHash!;
    // Earlier failed rows of these payments were carried by this one: nothing waits for an operator.
    await clearFailedSettlementRows(tx, row.id, row.kind === 'sweep' ? 'sweep' : 'merchant');
    const place = { network: row.network, asset: row.asset };
    const fee = payoutFee({ ...updated, merchantId, amount: BigInt(updated.amount), txHash, feeWei: receipt.feeWei });
    if (row.kind === 'sweep') {
      const deposits = items.map((i) => ({ address: i.depositAddress!, amountMicro: i.amountMicro }));
      await writePostings(tx, [sweepConfirmed({ ...place, sweepId: row.id, treasury: row.fromAddress, txHash, deposits }), fee]);
    } else {
      const amountMicro = BigInt(row.amount);
      const confirmed = outgoingConfirmed({
        ...place,
        outgoingId: row.id,
        merchantId,
        paymentId: null,
        treasury: row.fromAddress,
        txHash,
        amountMicro,
      });
      await writePostings(tx, [confirmed, fee]);
      const reference = { transactionHash: txHash, explorerUrl: explorerUrlFor(row.network, txHash), payoutId: row.id };
      await setPayoutReference(
        tx,
        items.map((i) => i.paymentId),
        reference,
      );
    }
    return { row: updated, confirmedNow: true };
  });
}
