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
 * Transfers to any of `recipients` in [fromBlock, toBlock], in one eth_getLogs per block span however
 * many recipients there are:
 * - up to `addressesPerCall` recipients (providers cap a topic list): the `to` topic as an array,
 *   ORed by the node, over every contract, not only the configured ones: money of another token
 *   reaching a deposit address must be seen to be owned (a `wrong_asset` exception);
 * - more: every Transfer log of the span, whatever its contract, kept in memory when its recipient is
 *   one of ours. The read then grows with the chain's transfer traffic, not with the open payments,
 *   and a contract this deployment does not configure is still seen at a deposit address (a
 *   `wrong_asset` exception owns it, as below the cap).
 * Which token credits which payment is decided by the payment's rules (domain/arrivals.ts), never
 * here. `strict` drops logs that do not decode as an ERC-20 Transfer (ERC-721's has its value indexed).
 */
export async function readTransfers(
  client: PublicClient,
  input: {
    network: EvmNetwork;
    tokens: readonly WatchedToken[];
    /** Any case; a Set of lowercase addresses is used as it is (the watcher's, kept between scans). */
    recipients: readonly Address[] | ReadonlySet<string>;
    fromBlock: bigint;
    toBlock: bigint;
    limits?: LogReadLimits;
  },
): Promise<TokenTransfer[]> {
  const limits = input.limits ?? DEFAULT_LOG_LIMITS;
  // One pass over the recipients at most: at 100,000 open addresses each extra copy costs more than the call.
  const wanted = input.recipients instanceof Set ? input.recipients : lowercaseSet(input.recipients as readonly Address[]);
  if (wanted.size === 0 || input.fromBlock > input.toBlock) return [];
  const tokenOf = new Map(input.tokens.map((t) => [t.address.toLowerCase(), t]));
  const byTopic = wanted.size <= limits.addressesPerCall;
  const recipients = byTopic ? ([...wanted] as Address[]) : [];
  const calls: Promise<TokenTransfer[]>[] = [];
  for (let from = input.fromBlock; from <= input.toBlock; from += limits.blocksPerCall) {
    const to = min(from + limits.blocksPerCall - 1n, input.toBlock);
    const logs = byTopic
      ? client.getLogs({ event: transferEvent, args: { to: recipients }, fromBlock: from, toBlock: to, strict: true })
      : client.getLogs({ event: transferEvent, fromBlock: from, toBlock: to, strict: true });
    calls.push(
      logs.then((found) =>
        found
          .filter((log) => !log.removed && (byTopic || wanted.has(log.args.to.toLowerCase())))
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
  const transfers = (await Promise.all(calls)).flat();
  return transfers.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
}

/** Addresses as one Set of lowercase strings (nodes answer in lowercase, configuration is checksummed). */
export function lowercaseSet(addresses: Iterable<string>, into = new Set<string>()): Set<string> {
  for (const a of addresses) into.add(a.toLowerCase());
  return into;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
