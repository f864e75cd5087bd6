import {
  createPublicClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  http,
  type Address,
  type Chain,
  type LocalAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import type { Asset, EvmNetwork } from '../domain/assets';

/** One configured network, as config.chains.networks lists them (the shape is all this layer needs). */
export interface ChainEndpoint {
  network: EvmNetwork;
  rpcUrl: string;
  chainId: number;
  confirmations: number;
  tokens: Readonly<Record<Asset, Address | null>>;
}

export interface WatchedToken {
  asset: Asset;
  address: Address;
}

export interface ChainClient {
  network: EvmNetwork;
  chainId: number;
  confirmations: number;
  tokens: WatchedToken[];
  chain: Chain;
  publicClient: PublicClient;
}

export class ChainMismatchError extends Error {}

/**
 * A network's public client. JSON-RPC batching is on, so the calls a scan makes at once (head,
 * logs of several address chunks) travel in one HTTP request.
 */
export function createChainClient(endpoint: ChainEndpoint, options: { transport?: Transport } = {}): ChainClient {
  const chain = defineChain({
    id: endpoint.chainId,
    name: endpoint.network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [endpoint.rpcUrl] } },
  });
  const transport = options.transport ?? http(endpoint.rpcUrl, { batch: true, retryCount: 2 });
  const tokens = (Object.entries(endpoint.tokens) as [Asset, Address | null][])
    .filter((t): t is [Asset, Address] => t[1] !== null)
    .map(([asset, address]) => ({ asset, address }));
  return {
    network: endpoint.network,
    chainId: endpoint.chainId,
    confirmations: endpoint.confirmations,
    tokens,
    chain,
    publicClient: createPublicClient({ chain, transport }),
  };
}

/** A wallet client that signs locally with `account` (a derived key), sending through the network's RPC. */
export function walletClientFor(client: ChainClient, account: LocalAccount): WalletClient {
  return createWalletClient({ account, chain: client.chain, transport: http(client.chain.rpcUrls.default.http[0]) });
}

/**
 * An RPC URL pointing at another chain than configured would make the watcher read the wrong chain's
 * logs and payouts sign for the wrong chain id: checked once before a client is trusted.
 */
export async function assertChainId(client: ChainClient): Promise<void> {
  const actual = await client.publicClient.getChainId();
  if (actual !== client.chainId) {
    throw new ChainMismatchError(`${client.network}: the RPC answers chain id ${actual}, configured ${client.chainId}`);
  }
}

/** `owner`'s balance of an ERC-20 `token`, in the token's units (micro for the 6-decimal stablecoins). */
export function tokenBalance(client: ChainClient, token: Address, owner: Address): Promise<bigint> {
  return client.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}
