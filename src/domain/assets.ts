// Destination assets and networks that settle (decisions §4). A pair outside this table is 422.

export const NETWORKS = ['polygon', 'ethereum', 'base', 'arbitrum', 'solana', 'tron'] as const;
export type Network = (typeof NETWORKS)[number];

export const ASSETS = ['USDC', 'USDT'] as const;
export type Asset = (typeof ASSETS)[number];

export const SUPPORTED_PAIRS: Readonly<Record<Asset, readonly Network[]>> = {
  USDC: ['polygon', 'ethereum', 'base', 'arbitrum', 'solana'],
  USDT: ['polygon', 'ethereum', 'tron'],
};

export const DEFAULT_ASSET: Asset = 'USDC';
export const DEFAULT_NETWORK: Network = 'polygon';

export function isSupportedPair(asset: string, network: string): boolean {
  const networks = SUPPORTED_PAIRS[asset as Asset] as readonly string[] | undefined;
  return networks?.includes(network) ?? false;
}

export const NETWORK_NAMES: Readonly<Record<Network, string>> = {
  polygon: 'Polygon',
  ethereum: 'Ethereum',
  base: 'Base',
  arbitrum: 'Arbitrum',
  solana: 'Solana',
  tron: 'Tron',
};

export const EXPLORERS: Readonly<Record<Network, string>> = {
  polygon: 'polygonscan.com',
  ethereum: 'etherscan.io',
  base: 'basescan.org',
  arbitrum: 'arbiscan.io',
  solana: 'solscan.io',
  tron: 'tronscan.org',
};

// Address shapes per chain family: a typo in a settlement wallet sends money nowhere, so the
// operator surface refuses what cannot be an address on that network.
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

export function isWalletAddressFor(network: Network, address: string): boolean {
  if (network === 'solana') return SOLANA_ADDRESS.test(address);
  if (network === 'tron') return TRON_ADDRESS.test(address);
  return EVM_ADDRESS.test(address);
}

/** The networks whose settlement is verified on chain (decisions §11): EVM chains, read through viem. */
export const EVM_NETWORKS = ['ethereum', 'polygon', 'base', 'arbitrum'] as const satisfies readonly Network[];
export type EvmNetwork = (typeof EVM_NETWORKS)[number];

export function isEvmNetwork(network: string): network is EvmNetwork {
  return (EVM_NETWORKS as readonly string[]).includes(network);
}
