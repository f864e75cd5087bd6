import { createPublicClient, http, type PublicClient } from 'viem';
import { ensureAnvilBinary } from './anvil-binary';
import { DEV_MINTER_ADDRESS, devChain, nodeAccountWallet } from './dev-accounts';
import { startDevChain, type DevChain } from './dev-chain';
import { deployTestTokens, type TestTokenAddresses } from './test-tokens';

/**
 * An in-memory dev chain (anvil on a free port) with the project's test tokens deployed for every
 * EVM network, as the test run and the bench use it; stopped again if the deployment fails.
 */
export async function startDevChainWithTokens(): Promise<DevChain & { tokens: TestTokenAddresses }> {
  const chain = await startDevChain({ binary: ensureAnvilBinary() });
  try {
    const publicClient = createPublicClient({ chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) }) as PublicClient;
    const tokens = await deployTestTokens(nodeAccountWallet(chain.rpcUrl, DEV_MINTER_ADDRESS), publicClient);
    return { ...chain, tokens };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}
