import { erc20Abi, type Address } from 'viem';
import type { ChainClient } from './clients';

/**
 * What an address holds on chain now: a configured token's balance in its units (micro units for our
 * 6-decimal stablecoins), or the native coin in wei for `asset === 'native'`. Null for an asset the
 * network does not configure.
 */
export async function onChainBalance(client: ChainClient, address: Address, asset: string): Promise<bigint | null> {
  if (asset === 'native') return client.publicClient.getBalance({ address });
  const token = client.tokens.find((t) => t.asset === asset);
  if (!token) return null;
  return client.publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
}
