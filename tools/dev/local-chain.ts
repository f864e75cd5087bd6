import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, http, type PublicClient } from 'viem';
import { ensureAnvilBinary } from './anvil-binary';
import { DEV_MINTER_ADDRESS, devChain, nodeAccountWallet } from './dev-accounts';
import { startDevChain, type DevChain } from './dev-chain';
import { deployTestTokens, devChainVariables, testTokensDeployed, type TestTokenAddresses } from './test-tokens';

// `npm start`'s local chain (decisions §11): anvil with its state in the data directory, and the
// project's test tokens deployed once. Their addresses are remembered beside the state; a state that
// was lost (file deleted, anvil upgraded) no longer has their code, and they are deployed again.

export interface LocalChain {
  chain: DevChain;
  tokens: TestTokenAddresses;
  /** CHAIN_<NETWORK>_* for the four EVM networks, all on this chain. */
  variables: Record<string, string>;
}

export async function startLocalChain(options: { dataDir: string; port: number; log: (line: string) => void }): Promise<LocalChain> {
  const stateFile = path.join(options.dataDir, 'anvil-state.json');
  const tokensFile = path.join(options.dataDir, 'chain-tokens.json');
  options.log(`Starting a local chain (anvil) on 127.0.0.1:${options.port} (state in ${stateFile})…`);
  const chain = await startDevChain({ binary: ensureAnvilBinary(), port: options.port, stateFile });
  try {
    const publicClient = createPublicClient({ chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) }) as PublicClient;
    let tokens = readTokens(tokensFile);
    if (!tokens || !(await testTokensDeployed(publicClient, tokens))) {
      options.log('Deploying the test tokens (USDC and USDT for ethereum, polygon, base, arbitrum)…');
      tokens = await deployTestTokens(nodeAccountWallet(chain.rpcUrl, DEV_MINTER_ADDRESS), publicClient);
      writeFileSync(tokensFile, JSON.stringify(tokens, null, 2) + '\n');
    }
    return { chain, tokens, variables: devChainVariables(chain.rpcUrl, chain.chainId, tokens) };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}

function readTokens(file: string): TestTokenAddresses | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as TestTokenAddresses;
  } catch {
    return null;
  }
}
