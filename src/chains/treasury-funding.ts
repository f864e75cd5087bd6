import { getAddress, parseEventLogs, type Address, type Hash } from 'viem';
import { NATIVE_ASSET } from '../domain/ledger';
import type { ChainClient } from './clients';
import { confirmationsOf, transferEvent } from './transfer-logs';

/** One movement of money into the treasury that a transaction made: a configured token's transfer, or native coin. */
export interface TreasuryInflow {
  asset: string;
  amount: bigint;
  from: Address;
  /** The token transfer's log; null for the transaction's own native value. */
  logIndex: number | null;
}

export type FundingRead = { found: false } | { found: true; confirmations: bigint; sender: Address; inflows: TreasuryInflow[] };

/**
 * What a transaction put into the treasury, from its receipt: every `Transfer` log of a configured
 * token whose recipient is the treasury, and the transaction's native value when it was sent to the
 * treasury. Reverted transactions moved nothing.
 */
export async function readTreasuryInflows(client: ChainClient, hash: Hash, treasury: Address): Promise<FundingRead> {
  const [receipt, transaction, head] = await Promise.all([
    client.publicClient.getTransactionReceipt({ hash }).catch(() => null),
    client.publicClient.getTransaction({ hash }).catch(() => null),
    client.publicClient.getBlockNumber(),
  ]);
  if (!receipt || !transaction) return { found: false };
  const confirmations = confirmationsOf(head, receipt.blockNumber);
  if (receipt.status !== 'success') return { found: true, confirmations, sender: transaction.from, inflows: [] };
  const wanted = treasury.toLowerCase();
  const assetOf = new Map(client.tokens.map((t) => [t.address.toLowerCase(), t.asset]));
  const inflows: TreasuryInflow[] = parseEventLogs({ abi: [transferEvent], logs: receipt.logs, strict: true })
    .filter((log) => log.args.to.toLowerCase() === wanted && assetOf.has(log.address.toLowerCase()))
    .map((log) => ({
      asset: assetOf.get(log.address.toLowerCase())!,
      amount: log.args.value,
      from: getAddress(log.args.from),
      logIndex: log.logIndex,
    }));
  if (transaction.to?.toLowerCase() === wanted && transaction.value > 0n)
    inflows.push({ asset: NATIVE_ASSET, amount: transaction.value, from: getAddress(transaction.from), logIndex: null });
  return { found: true, confirmations, sender: transaction.from, inflows };
}
