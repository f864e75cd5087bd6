// A credited log is re-checked for a while after it was confirmed,
// because a reorg deeper than the confirmations takes it back. Pure: what the node says now about the
// log's transaction (its receipt, and which block it holds at the log's old height) against what was
// stored when the log was credited.

/** A credited log as `chain_credits` stores it. */
export interface StoredLog {
  transactionHash: string;
  logIndex: number;
  token: string;
  to: string;
  amountMicro: bigint;
  blockNumber: bigint;
  blockHash: string;
}

/** One log of a receipt, as the node returns it (a Transfer's `to` and value decoded from its topics and data). */
export interface ReceiptLog {
  logIndex: number;
  address: string;
  topics: readonly string[];
  data: string;
}

export interface NodeView {
  /** The transaction's receipt, or null when the node knows none. */
  receipt: { blockNumber: bigint; blockHash: string; status: 'success' | 'reverted'; logs: readonly ReceiptLog[] } | null;
  /** The hash of the node's block at the stored log's height; null when the node's chain is not that long yet. */
  blockHashAtHeight: string | null;
}

export type LogStanding =
  /** In the block it was credited in. */
  | { kind: 'kept' }
  /** The same transaction and log, mined again in another block: the credit stands with the new block. */
  | { kind: 'moved'; blockNumber: bigint; blockHash: string }
  /** Its block left the chain and the log is nowhere: the credit is taken back. */
  | { kind: 'gone' }
  /** The node cannot tell yet (its chain is shorter than the log's height, or it holds the log's block without its receipt): ask again later. */
  | { kind: 'unknown' };

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const topicAddress = (topic: string | undefined) => (topic ? `0x${topic.slice(-40)}` : '');

/** Whether the receipt holds the stored log: the same index, token contract, recipient and amount. */
export function receiptHolds(logs: readonly ReceiptLog[], stored: StoredLog): boolean {
  return logs.some(
    (l) =>
      l.logIndex === stored.logIndex &&
      same(l.address, stored.token) &&
      l.topics[0] !== undefined &&
      same(l.topics[0], TRANSFER_TOPIC) &&
      same(topicAddress(l.topics[2]), stored.to) &&
      l.data !== '0x' &&
      BigInt(l.data) === stored.amountMicro,
  );
}

/**
 * Where the stored log stands on the node's chain. "Gone" needs proof that the chain changed: the node
 * holds another block at the log's height (or a receipt elsewhere without the log). A node that merely
 * lags behind, or answers without the receipt of a block it still holds, says nothing (`unknown`),
 * so a slow or inconsistent RPC endpoint never takes a payment's money back.
 */
export function logStanding(stored: StoredLog, node: NodeView): LogStanding {
  const { receipt } = node;
  if (receipt) {
    if (same(receipt.blockHash, stored.blockHash)) return { kind: 'kept' };
    if (receipt.status === 'success' && receiptHolds(receipt.logs, stored))
      return { kind: 'moved', blockNumber: receipt.blockNumber, blockHash: receipt.blockHash.toLowerCase() };
    return { kind: 'gone' };
  }
  if (node.blockHashAtHeight === null) return { kind: 'unknown' };
  return same(node.blockHashAtHeight, stored.blockHash) ? { kind: 'unknown' } : { kind: 'gone' };
}

/**
 * A transaction of ours (a payout) recorded as mined at `blockNumber`: whether the node still has it.
 * Gone needs the same proof as a log: no receipt anywhere, and the node's block at that height is
 * there without it. A node behind that height, or one holding the transaction without its receipt,
 * says nothing: a payout is never sent on a node's silence alone.
 */
export function transactionStanding(
  hash: string,
  node: { hasReceipt: boolean; transactionsAtHeight: readonly string[] | null },
): 'mined' | 'gone' | 'unknown' {
  if (node.hasReceipt) return 'mined';
  if (node.transactionsAtHeight === null) return 'unknown';
  return node.transactionsAtHeight.some((t) => same(t, hash)) ? 'unknown' : 'gone';
}
