import { getAddress, parseAbiItem, type Address, type Hash, type PublicClient } from 'viem';
import type { Asset, EvmNetwork } from '../domain/assets';
import type { WatchedToken } from './clients';

export const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** One ERC-20 Transfer to a watched address: (network, transactionHash, logIndex) identifies it. */
export interface TokenTransfer {
  network: EvmNetwork;
  /** The configured asset of the token contract; null for a contract this deployment does not configure. */
  asset: Asset | null;
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
 * Transfers of any token contract to any of `recipients` in [fromBlock, toBlock]. Every contract, not
 * only the configured ones: money of another token reaching a deposit address must be seen to be owned
 * (decisions §14, `wrong_asset`); which token credits which payment is decided by the payment's rules
 * (domain/arrivals.ts), never here. One eth_getLogs covers a whole chunk of recipients (the `to` topic
 * as an array, ORed by the node), so the cost grows with the number of chunks, never with the number
 * of addresses. `strict` drops logs that do not decode as an ERC-20 Transfer (ERC-721's has its value
 * indexed).
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
  if (input.recipients.length === 0 || input.fromBlock > input.toBlock) return [];
  const tokenOf = new Map(input.tokens.map((t) => [t.address.toLowerCase(), t]));
  const recipientChunks = chunk([...new Set(input.recipients)], limits.addressesPerCall);
  const calls: Promise<TokenTransfer[]>[] = [];
  for (let from = input.fromBlock; from <= input.toBlock; from += limits.blocksPerCall) {
    const to = min(from + limits.blocksPerCall - 1n, input.toBlock);
    for (const recipients of recipientChunks) {
      calls.push(
        client.getLogs({ event: transferEvent, args: { to: recipients }, fromBlock: from, toBlock: to, strict: true }).then((logs) =>
          logs
            .filter((log) => !log.removed)
            .map((log) => ({
              network: input.network,
              asset: tokenOf.get(log.address.toLowerCase())?.asset ?? null,
              // The configured (checksummed) address; nodes answer in lowercase.
              token: tokenOf.get(log.address.toLowerCase())?.address ?? getAddress(log.address),
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
