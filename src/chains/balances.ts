import { erc20Abi, getAddress, isAddress, type Address } from 'viem';
import type { ChainClient } from './clients';

/**
 * What an address holds on chain now: a configured token's balance in its units (micro units for our
 * 6-decimal stablecoins), or the native coin in wei for `asset === 'native'`. Null for an asset the
 * network does not configure.
 */
export async function onChainBalance(client: ChainClient, address: Address, asset: string): Promise<bigint | null> {
  if (asset === 'native') return client.publicClient.getBalance({ address });
  const unlisted = unlistedTokenOf(asset);
  if (unlisted) return client.publicClient.readContract({ address: unlisted, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
  const token = client.tokens.find((t) => t.asset === asset);
  if (!token) return null;
  return client.publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
}

/**
 * The ledger's asset name of a token contract this deployment does not configure (a wrong asset
 * refunded in the token that arrived): `erc20:<contract>`, so reconciliation reads that contract.
 */
export const unlistedTokenAsset = (token: string) => `erc20:${getAddress(token)}`;

export function unlistedTokenOf(asset: string): Address | null {
  return asset.startsWith('erc20:') && isAddress(asset.slice(6)) ? getAddress(asset.slice(6)) : null;
}
