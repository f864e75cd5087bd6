import { parseAbiItem, type Address, type Hash, type PublicClient } from 'viem';
import type { Asset, EvmNetwork } from '../domain/assets';
import type { WatchedToken } from './clients';

export const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** One ERC-20 Transfer of a watched token: (network, transactionHash, logIndex) identifies it. */
export interface TokenTransfer {
  network: EvmNetwork;
  asset: Asset;
  token: Address;
  transactionHash: Hash;
  logIndex: number;
  blockNumber: bigint;
  /** Which block the log was read in: the same transaction mined again after a reorg is another block. */
  blockHash: Hash;
  from: Address;
  to: Address;
  /** Token units; micro units for our 6-decimal stablecoins. */
  amount: bigint;
}

/** Providers cap both: the topic list of one eth_getLogs and the block span it may cover. */
export interface LogReadLimits {
  addressesPerCall: number;
  blocksPerCall: bigint;
}

export const DEFAULT_LOG_LIMITS: LogReadLimits = { addressesPerCall: 500, blocksPerCall: 2000n };

export const transferKey = (t: Pick<TokenTransfer, 'network' | 'transactionHash' | 'logIndex'>) =>
  `${t.network}:${t.transactionHash.toLowerCase()}:${t.logIndex}`;

/** Confirmations of a block at `head`: the block itself counts as one. */
export function confirmationsOf(head: bigint, blockNumber: bigint): bigint {
  return head >= blockNumber ? head - blockNumber + 1n : 0n;
}

/**
 * Transfers of the network's tokens to any of `recipients` in [fromBlock, toBlock]. One eth_getLogs
 * covers every token contract and a whole chunk of recipients (the `to` topic as an array, ORed by
 * the node), so the cost grows with the number of chunks, never with the number of addresses.
 */
export async function readTransfers(
  client: PublicClient,
  input: {
    network: EvmNetwork;
    tokens: readonly WatchedToken[];
    recipients: readonly Address[];
    fromBlock: bigint;
    toBlock: bigint;
    limits?: LogReadLimits;
  },
): Promise<TokenTransfer[]> {
  const limits = input.limits ?? DEFAULT_LOG_LIMITS;
  if (input.tokens.length === 0 || input.recipients.length === 0 || input.fromBlock > input.toBlock) return [];
  const tokenOf = new Map(input.tokens.map((t) => [t.address.toLowerCase(), t]));
  const recipientChunks = chunk([...new Set(input.recipients)], limits.addressesPerCall);
  const calls: Promise<TokenTransfer[]>[] = [];
  for (let from = input.fromBlock; from <= input.toBlock; from += limits.blocksPerCall) {
    const to = min(from + limits.blocksPerCall - 1n, input.toBlock);
    for (const recipients of recipientChunks) {
      calls.push(
        client
          .getLogs({ address: input.tokens.map((t) => t.address), event: transferEvent, args: { to: recipients }, fromBlock: from, toBlock: to, strict: true })
          .then((logs) =>
            logs
              .filter((log) => !log.removed)
              .map((log) => ({
                network: input.network,
                asset: tokenOf.get(log.address.toLowerCase())!.asset,
                // The configured (checksummed) address; nodes answer in lowercase.
                token: tokenOf.get(log.address.toLowerCase())!.address,
                transactionHash: log.transactionHash,
                logIndex: log.logIndex,
                blockNumber: log.blockNumber,
                blockHash: log.blockHash,
                from: log.args.from,
                to: log.args.to,
                amount: log.args.value,
              })),
          ),
      );
    }
  }
  const transfers = (await Promise.all(calls)).flat();
  return transfers.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
