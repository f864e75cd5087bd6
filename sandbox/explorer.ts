import { decodeEventLog, erc20Abi, type Hash } from 'viem';
import { createChainClient, type ChainClient, type ChainEndpoint } from '../src/chains/clients';
import type { Asset, EvmNetwork } from '../src/domain/assets';
import { formatCrypto } from '../src/domain/money';

// In sandbox mode the service's explorer links point at the sandbox's own transaction
// page. Any transaction of the local chain can be linked (a payout, a customer's wallet transfer),
// not only the sandbox's own deliveries, so the page reads the receipt from the chain itself.

export const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

export interface TokenTransfer {
  asset: Asset;
  network: EvmNetwork;
  token: string;
  from: string;
  to: string;
  /** 6 decimals. */
  amount: string;
}

export interface ChainReceipt {
  hash: string;
  /** The configured networks this chain serves (in development several share the one local chain). */
  networks: EvmNetwork[];
  chainId: number;
  blockNumber: bigint;
  confirmations: bigint;
  status: 'success' | 'reverted';
  from: string;
  to: string | null;
  transfers: TokenTransfer[];
}

/** Reads a transaction's receipt from each distinct configured chain; null when none has it. */
export function createChainExplorer(endpoints: readonly ChainEndpoint[]) {
  // One client per RPC endpoint, each knowing the tokens of every network that shares it.
  const byRpc = new Map<string, ChainClient[]>();
  for (const e of endpoints) byRpc.set(e.rpcUrl, [...(byRpc.get(e.rpcUrl) ?? []), createChainClient(e)]);

  async function lookup(hash: string): Promise<ChainReceipt | null> {
    if (!TX_HASH.test(hash)) return null;
    for (const clients of byRpc.values()) {
      const client = clients[0]!;
      const receipt = await client.publicClient.getTransactionReceipt({ hash: hash as Hash }).catch(() => null);
      if (!receipt) continue;
      const head = await client.publicClient.getBlockNumber();
      const tokens = clients.flatMap((c) => c.tokens.map((t) => ({ ...t, network: c.network })));
      const transfers: TokenTransfer[] = [];
      for (const log of receipt.logs) {
        const token = tokens.find((t) => t.address.toLowerCase() === log.address.toLowerCase());
        if (!token) continue;
        try {
          const event = decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics });
          if (event.eventName !== 'Transfer') continue;
          transfers.push({
            asset: token.asset,
            network: token.network,
            token: log.address,
            from: event.args.from,
            to: event.args.to,
            amount: formatCrypto(event.args.value),
          });
        } catch {
          // Another event of the token contract (an Approval): not a transfer.
        }
      }
      return {
        hash: receipt.transactionHash,
        networks: clients.map((c) => c.network),
        chainId: client.chainId,
        blockNumber: receipt.blockNumber,
        confirmations: head - receipt.blockNumber + 1n,
        status: receipt.status,
        from: receipt.from,
        to: receipt.to,
        transfers,
      };
    }
    return null;
  }

  return { lookup };
}
