import { createPublicClient, http, type Address, type Hash, type PublicClient } from 'viem';

/** What a round cost on chain, read from the chain itself (blocks, receipts, balances), never assumed. */
export interface ChainSpend {
  /** Transactions whose sender is the side's treasury or one of the round's deposit addresses. */
  transactions: number;
  /** Of those, sent by the treasury (checked against its nonce). */
  fromTreasury: number;
  gasUsed: bigint;
  /** Native coin at the round's deposit addresses once the round is over. */
  depositWei: bigint;
}

export function chainReader(rpcUrl: string): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { batch: { batchSize: 200 } }) });
}

/**
 * Every block from `afterBlock` (exclusive) to now, every transaction in it sent by `treasury` or a
 * deposit address, and its receipt. Anvil keeps every block, so the count is exact; the treasury's
 * nonce must have moved by as many, else the blocks were read wrong.
 */
export async function chainSpend(
  client: PublicClient,
  input: { afterBlock: bigint; treasury: Address; treasuryNonceBefore: number; deposits: readonly Address[] },
): Promise<ChainSpend> {
  const head = await client.getBlockNumber();
  const treasury = input.treasury.toLowerCase();
  const senders = new Set([treasury, ...input.deposits.map((d) => d.toLowerCase())]);
  const hashes: Hash[] = [];
  let fromTreasury = 0;
  const numbers: bigint[] = [];
  for (let n = input.afterBlock + 1n; n <= head; n++) numbers.push(n);
  for (let i = 0; i < numbers.length; i += 200) {
    const blocks = await Promise.all(
      numbers.slice(i, i + 200).map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: true })),
    );
    for (const tx of blocks.flatMap((b) => b.transactions)) {
      const from = tx.from.toLowerCase();
      if (!senders.has(from)) continue;
      hashes.push(tx.hash);
      if (from === treasury) fromTreasury++;
    }
  }
  let gasUsed = 0n;
  for (let i = 0; i < hashes.length; i += 200) {
    const receipts = await Promise.all(hashes.slice(i, i + 200).map((hash) => client.getTransactionReceipt({ hash })));
    for (const r of receipts) gasUsed += r.gasUsed;
  }
  const nonce = await client.getTransactionCount({ address: input.treasury, blockTag: 'latest' });
  // Not fatal: the run's other figures stand; this one is flagged in the log.
  if (nonce - input.treasuryNonceBefore !== fromTreasury)
    console.error(
      `[bench] treasury ${input.treasury}: nonce moved by ${nonce - input.treasuryNonceBefore}, the blocks show ${fromTreasury} transactions`,
    );
  let depositWei = 0n;
  for (let i = 0; i < input.deposits.length; i += 200) {
    const balances = await Promise.all(input.deposits.slice(i, i + 200).map((address) => client.getBalance({ address })));
    for (const b of balances) depositWei += b;
  }
  return { transactions: hashes.length, fromTreasury, gasUsed, depositWei };
}
