import { createPublicClient, http, type PublicClient } from 'viem';
import { ensureAnvilBinary } from './anvil-binary';
import { DEV_MINTER_ADDRESS, devChain, nodeAccountWallet } from './dev-accounts';
import { startDevChain, type DevChain } from './dev-chain';
import { deploySweepers, devTreasuryAddress, type SweeperAddresses } from './dev-sweepers';
import { deployTestTokens, type TestTokenAddresses } from './test-tokens';

/**
 * An in-memory dev chain (anvil on a free port) with the project's test tokens and a deposit sweeper
 * (owned by the development treasury) deployed for every EVM network, as the test run and the bench
 * use it; stopped again if a deployment fails.
 */
export async function startDevChainWithTokens(): Promise<DevChain & { tokens: TestTokenAddresses; sweepers: SweeperAddresses }> {
  const chain = await startDevChain({ binary: ensureAnvilBinary() });
  try {
    const publicClient = createPublicClient({ chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) }) as PublicClient;
    const deployer = nodeAccountWallet(chain.rpcUrl, DEV_MINTER_ADDRESS);
    const tokens = await deployTestTokens(deployer, publicClient);
    const sweepers = await deploySweepers(deployer, publicClient, devTreasuryAddress());
    return { ...chain, tokens, sweepers };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}
