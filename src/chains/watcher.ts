import type { Address } from 'viem';
import type { ChainClient } from './clients';
import { confirmationsOf, lowercaseSet, readTransfers, transferKey, type LogReadLimits, type TokenTransfer } from './transfer-logs';

// The chain watcher's core, one per network: no Temporal, no database. The caller
// owns the cursor (it can live in Postgres), calls `scan` on a timer, and turns the result into
// signals: credit `confirmed`, forget `removed`. Every scan re-reads the blocks that are not yet
// confirmed, so a reorg within the confirmation depth is seen whether it removes, moves or adds a
// transfer; blocks at or below `confirmedThrough` are final: read once more by the next scan (its
// `rereadFrom`: a node may answer a block's logs late), never after.

export interface WatchCursor {
  /** Every block up to this one has been read and its transfers reported as confirmed. */
  confirmedThrough: bigint;
  /** Transfers read in later blocks, not yet confirmed, with the block hash they were read in. */
  pending: TokenTransfer[];
  /**
   * The first block the scan that made this cursor read anew: the next scan reads from here once
   * more (below), whichever process makes it, as the cursor is kept with it.
   */
  rereadFrom?: bigint;
}

export interface ObservedTransfer extends TokenTransfer {
  confirmations: bigint;
}

export interface ScanResult {
  cursor: WatchCursor;
  head: bigint;
  /** Read for the first time (in this block), not yet confirmed: worth showing, not crediting. */
  seen: ObservedTransfer[];
  /** Confirmed now, each reported once across scans: the transfers to credit. */
  confirmed: ObservedTransfer[];
  /** Every transfer still waiting for confirmation, with its count at this head (for "confirming 3 of 12"). */
  unconfirmed: ObservedTransfer[];
  /** Reported as seen earlier; their block left the canonical chain before confirmation. Apply before `seen`/`confirmed`: the same transfer may come back in another block. */
  removed: TokenTransfer[];
  /** False when the scan stopped at `maxBlocksPerScan` short of the head: scan again at once. */
  caughtUp: boolean;
}

export type WatchedAddresses = readonly Address[] | ReadonlySet<string>;

export interface TransferWatcherDeps {
  client: ChainClient;
  /**
   * The open deposit addresses of this network, asked on every scan: a list in any case, or a Set of
   * lowercase addresses the caller keeps between scans, used as it is (at 100,000 open addresses,
   * folding a list into a set again on every scan was most of the scan's time).
   */
  addresses: () => WatchedAddresses | Promise<WatchedAddresses>;
  limits?: LogReadLimits;
  /** Bounds one scan's work when catching up after downtime. */
  maxBlocksPerScan?: bigint;
}

export class TransferWatcher {
  private readonly maxBlocksPerScan: bigint;
  /** This instance's previous scan: its new range's first block, and what it reported confirmed. */
  private last: { from: bigint; confirmed: Set<string> } | null = null;

  constructor(private readonly deps: TransferWatcherDeps) {
    this.maxBlocksPerScan = deps.maxBlocksPerScan ?? 10_000n;
    if (this.maxBlocksPerScan < BigInt(deps.client.confirmations)) {
      throw new RangeError('maxBlocksPerScan must cover at least the confirmation depth');
    }
  }

  /** A cursor that starts reading at `fromBlock` (default: the current head). */
  async startCursor(fromBlock?: bigint): Promise<WatchCursor> {
    const start = fromBlock ?? (await this.deps.client.publicClient.getBlockNumber({ cacheTime: 0 }));
    return { confirmedThrough: start - 1n, pending: [] };
  }

  async scan(cursor: WatchCursor): Promise<ScanResult> {
    const { client } = this.deps;
    // The head first, then the addresses: a transfer in a block at or below the head was mined before
    // the addresses were read, so the payment it pays was opened (its row committed) before that too,
    // and is among them. Read at once, a payment opened and paid between the two reads would have its
    // block scanned without its address, and the cursor would pass the transfer for good.
    const head = await client.publicClient.getBlockNumber({ cacheTime: 0 });
    const open = await this.deps.addresses();
    const fresh = cursor.confirmedThrough + 1n;
    const to = min(head, fresh + this.maxBlocksPerScan - 1n);
    // The previous scan's range is read once more, in the same call, with the addresses read again:
    // a transfer that scan did not get (a node answering a block's number before its logs; a payment
    // the addresses lacked) is reported now, once. What this instance reported there is not again; a
    // process taking the network over knows nothing of it and reports the range again, which every
    // receiver of a credit takes once (the workflow, the late-deposit record).
    const from = cursor.rereadFrom !== undefined && cursor.rereadFrom < fresh ? cursor.rereadFrom : fresh;
    const reported = this.last?.from === from ? this.last.confirmed : null;
    // A pending transfer's address stays watched until it settles, even if the payment closed meanwhile.
    const recipients = withPending(open, cursor.pending);
    const read = await readTransfers(client.publicClient, {
      network: client.network,
      tokens: client.tokens,
      recipients,
      fromBlock: from,
      toBlock: to,
      limits: this.deps.limits,
    });

    const finalThrough = head - BigInt(client.confirmations) + 1n;
    const confirmedThrough = max(cursor.confirmedThrough, min(to, finalThrough));
    const stillThere = new Set(read.map(blockKey));
    const before = new Set(cursor.pending.map(blockKey));
    // A block above the head no longer exists: the chain was replaced by a shorter one.
    const removed = cursor.pending.filter((p) => p.blockNumber > head || (p.blockNumber <= to && !stillThere.has(blockKey(p))));
    const beyond = cursor.pending.filter((p) => p.blockNumber > to && p.blockNumber <= head);

    const seen: ObservedTransfer[] = [];
    const confirmed: ObservedTransfer[] = [];
    const pending: TokenTransfer[] = [...beyond];
    for (const transfer of read) {
      const observed = { ...transfer, confirmations: confirmationsOf(head, transfer.blockNumber) };
      if (transfer.blockNumber < fresh) {
        // Read again: confirmed already, reported unless this instance's previous scan did.
        if (!reported?.has(blockKey(transfer))) confirmed.push(observed);
      } else if (transfer.blockNumber <= confirmedThrough) {
        confirmed.push(observed);
      } else {
        pending.push(transfer);
        if (!before.has(blockKey(transfer))) seen.push(observed);
      }
    }
    const unconfirmed = pending.map((p) => ({ ...p, confirmations: confirmationsOf(head, p.blockNumber) }));
    this.last = { from: fresh, confirmed: new Set(confirmed.map(blockKey)) };
    return {
      cursor: { confirmedThrough, pending, rereadFrom: fresh },
      head,
      seen,
      confirmed,
      unconfirmed,
      removed,
      caughtUp: to >= head,
    };
  }
}

/** The watched set plus the pending transfers' addresses; the caller's set itself when it holds them all (no copy). */
function withPending(open: WatchedAddresses, pending: readonly TokenTransfer[]): ReadonlySet<string> {
  if (open instanceof Set) {
    const held = open as ReadonlySet<string>;
    if (pending.every((p) => held.has(p.to.toLowerCase()))) return held;
    return lowercaseSet(
      pending.map((p) => p.to),
      new Set(held),
    );
  }
  return lowercaseSet(
    pending.map((p) => p.to),
    lowercaseSet(open as readonly Address[]),
  );
}

/** The same log in another block is another observation: a reorg moved it. */
const blockKey = (t: TokenTransfer) => `${transferKey(t)}@${t.blockHash.toLowerCase()}`;

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** The cursor as JSON (bigints as decimal strings), for a jsonb column or a workflow payload. */
export function cursorToJson(cursor: WatchCursor): unknown {
  return {
    confirmedThrough: cursor.confirmedThrough.toString(),
    pending: cursor.pending.map((p) => ({ ...p, blockNumber: p.blockNumber.toString(), amount: p.amount.toString() })),
    ...(cursor.rereadFrom !== undefined ? { rereadFrom: cursor.rereadFrom.toString() } : {}),
  };
}

export function cursorFromJson(json: unknown): WatchCursor {
  const c = json as {
    confirmedThrough: string;
    pending: (Omit<TokenTransfer, 'blockNumber' | 'amount'> & { blockNumber: string; amount: string })[];
    rereadFrom?: string;
  };
  return {
    confirmedThrough: BigInt(c.confirmedThrough),
    ...(c.rereadFrom !== undefined ? { rereadFrom: BigInt(c.rereadFrom) } : {}),
    pending: c.pending.map((p) => ({
      ...p,
      blockNumber: BigInt(p.blockNumber),
      amount: BigInt(p.amount),
      transactionHash: p.transactionHash,
    })),
  };
}
