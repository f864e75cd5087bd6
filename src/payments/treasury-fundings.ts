import { getAddress, isHash, type Hash } from 'viem';
import { createChainClient } from '../chains/clients';
import { readTreasuryInflows } from '../chains/treasury-funding';
import { findDepositAddresses } from '../db/queries/deposit-addresses';
import { readPosting, writePostings } from '../db/queries/ledger';
import { isPayoutTransaction } from '../db/queries/payout-confirmations';
import { treasuryFunded } from '../domain/balances';
import { AppError, notFound, validationError } from '../domain/errors';
import type { PaymentContext } from './context';

// An operator's funding of a treasury from outside the platform (stablecoin, or the native coin that
// pays for gas) is recorded from the transaction that made it, so that the ledger knows the money and
// reconciliation does not report it as a difference for good (docs/settlement.md, "Reconciliation").
// The transaction is read from the chain, never taken on the operator's word: only what its receipt
// shows reaching the treasury, once it has the network's confirmations, is posted, once per log.

export interface RecordedFunding {
  network: string;
  asset: string;
  /** Micro units of a stablecoin, wei of the native coin. */
  amount: string;
  from: string;
  transactionHash: string;
  logIndex: number | null;
  /** False when an earlier call recorded it already. */
  recordedNow: boolean;
}

export async function recordTreasuryFunding(
  ctx: Pick<PaymentContext, 'db' | 'config' | 'treasuryAddress'>,
  input: { network: string; transactionHash: string },
): Promise<RecordedFunding[]> {
  const settings = ctx.config.chains.networks.find((n) => n.network === input.network);
  if (!settings) throw notFound(`A chain-verified network named ${input.network}`);
  if (!ctx.treasuryAddress) throw new AppError('Conflict', 'No treasury is configured: SETTLEMENT_MNEMONIC is not set.');
  if (!isHash(input.transactionHash))
    throw validationError([{ path: 'transactionHash', message: 'A transaction hash is 0x followed by 64 hexadecimal digits.' }]);
  const hash = input.transactionHash.toLowerCase() as Hash;
  const treasury = getAddress(ctx.treasuryAddress);
  if (await isPayoutTransaction(ctx.db, hash))
    throw new AppError('Conflict', `Transaction ${hash} is one the platform sent itself; only money from outside is a funding.`);
  const read = await readTreasuryInflows(createChainClient(settings), hash, treasury);
  if (!read.found) throw notFound(`Transaction ${hash} on ${input.network}`);
  if (read.confirmations < BigInt(settings.confirmations))
    throw new AppError(
      'Conflict',
      `Transaction ${hash} has ${read.confirmations} of the ${settings.confirmations} confirmations ${input.network} needs; record it once it has them.`,
      { retryable: true },
    );
  // Money a deposit address sends to the treasury is a payment's, already on the ledger; never a funding.
  const ours = new Set(
    (await findDepositAddresses(ctx.db, [...new Set(read.inflows.map((i) => i.from))])).map((d) => d.address.toLowerCase()),
  );
  const inflows = read.inflows.filter((i) => !ours.has(i.from.toLowerCase()));
  if (inflows.length === 0)
    throw new AppError('Conflict', `Transaction ${hash} sends nothing from outside to the treasury ${treasury} on ${input.network}.`);
  const postings = inflows.map((i) =>
    treasuryFunded({
      network: input.network,
      asset: i.asset,
      fundingId: `${input.network}:${hash}:${i.logIndex ?? 'value'}`,
      treasury,
      txHash: hash,
      amount: i.amount,
    }),
  );
  return ctx.db.transaction(async (tx) => {
    const known = await Promise.all(postings.map((p) => readPosting(tx, p.postingId)));
    await writePostings(tx, postings);
    return inflows.map((i, n) => ({
      network: input.network,
      asset: i.asset,
      amount: i.amount.toString(),
      from: i.from,
      transactionHash: hash,
      logIndex: i.logIndex,
      recordedNow: known[n] === undefined,
    }));
  });
}
