import type { Database } from '../db/client';
import { creditLog, uncreditLog } from '../db/queries/chain-credits';
import { nextArrivalPostingId, writePosting } from '../db/queries/ledger';
import { topUpArrived } from '../domain/balances';
import type { DepositFact } from '../domain/deposit-fact';
import { arrivalPostingPrefix } from '../domain/ledger';
import type { BusinessLog } from '../logging';

// Money a merchant sends to its own top-up address (docs/settlement.md). There is no payment and no
// workflow to tell: the watcher books it itself, in one transaction, keyed as every deposit log is
// (chain_credits' primary key), so a log re-sent after a crash is booked once.

/**
 * A confirmed transfer to `merchantId`'s top-up address: the merchant's available balance grows by
 * it (a configured stablecoin, more than nothing); any other token is recorded at the address for
 * reconciliation and credited to nobody. Returns the amount credited now (0 when it was already, or
 * is not a top-up).
 */
async function recordTopUp(db: Database, reference: string, merchantId: string, fact: DepositFact): Promise<bigint> {
  const amountMicro = BigInt(fact.amountMicro);
  const state = fact.asset === null ? 'wrong_asset' : amountMicro === 0n ? 'dust' : 'credited';
  return db.transaction(async (tx) => {
    const recorded = await creditLog(tx, reference, { ...fact, amountMicro, blockNumber: BigInt(fact.blockNumber) }, state);
    if (!recorded.held || !recorded.fresh || recorded.state !== 'credited' || fact.asset === null) return 0n;
    const postingId = await nextArrivalPostingId(tx, reference, arrivalPostingPrefix(fact));
    await writePosting(
      tx,
      topUpArrived({
        postingId,
        reference,
        merchantId,
        network: fact.network,
        asset: fact.asset,
        topUpAddress: fact.to,
        txHash: fact.transactionHash,
        amountMicro,
      }),
    );
    return amountMicro;
  });
}

/**
 * The watcher's word on a top-up: credited (with a line in the business log when money was), or its
 * block left the chain, and its credit is removed and what it added to the balance taken back (the
 * arrival posting reversed, as any arrival's is).
 */
export async function topUpFact(
  db: Database,
  reference: string,
  merchantId: string,
  fact: DepositFact,
  businessLog?: BusinessLog,
): Promise<void> {
  if (fact.kind === 'removed') {
    await uncreditLog(db, reference, fact);
    return;
  }
  const credited = await recordTopUp(db, reference, merchantId, fact);
  if (credited > 0n)
    businessLog?.('topup.credited', {
      paymentId: reference,
      merchantId,
      network: fact.network,
      asset: fact.asset,
      amountMicro: credited.toString(),
      transactionHash: fact.transactionHash,
    });
}
