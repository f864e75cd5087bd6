import { createHash } from 'node:crypto';
import { base58, createBase58check } from '@scure/base';
import { parseEvmAddress } from './evm-address';

// Destination assets and networks that settle. A pair outside this table is 422.

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

// A typo in a settlement or customer wallet sends money nowhere, so an address is checked with
// its network's own encoding, checksum included: EIP-55 for EVM (a mixed-case address must carry
// the right checksum; one in a single case carries none and is checksummed here), base58check with
// the 0x41 version byte for Tron, a base58 32-byte public key for Solana.
const tronBase58check = createBase58check((data) => new Uint8Array(createHash('sha256').update(data).digest()));

/** The address in its canonical form for the network (EIP-55 for EVM), or null when it cannot be one. */
export function normalizeWalletAddress(network: Network, address: string): string | null {
  if (network === 'solana') return decodesTo(() => base58.decode(address), 32) ? address : null;
  if (network === 'tron') return address.startsWith('T') && decodesTo(() => tronBase58check.decode(address), 21, 0x41) ? address : null;
  return parseEvmAddress(address);
}

export const isWalletAddressFor = (network: Network, address: string) => normalizeWalletAddress(network, address) !== null;

function decodesTo(decode: () => Uint8Array, length: number, version?: number): boolean {
  try {
    const bytes = decode();
    return bytes.length === length && (version === undefined || bytes[0] === version);
  } catch {
    return false;
  }
}

/** The networks whose settlement is verified on chain: EVM chains, read through viem. */
export const EVM_NETWORKS = ['ethereum', 'polygon', 'base', 'arbitrum'] as const satisfies readonly Network[];
export type EvmNetwork = (typeof EVM_NETWORKS)[number];

export function isEvmNetwork(network: string): network is EvmNetwork {
  return (EVM_NETWORKS as readonly string[]).includes(network);
}
