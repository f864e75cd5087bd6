import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, http, type Address, type PublicClient } from 'viem';
import { ensureAnvilBinary } from './anvil-binary';
import { DEV_MINTER_ADDRESS, devChain, nodeAccountWallet } from './dev-accounts';
import { startDevChain, type DevChain } from './dev-chain';
import { deploySweepers, sweepersDeployed, type SweeperAddresses } from './dev-sweepers';
import { deployTestTokens, devChainVariables, testTokensDeployed, type TestTokenAddresses } from './test-tokens';

// `npm start`'s local chain: anvil with its state in the data directory, and the
// project's test tokens and deposit sweepers deployed once. Their addresses are remembered beside the
// state; a state that was lost (file deleted, anvil upgraded) no longer has their code, and they are
// deployed again. The sweepers are remembered apart from the tokens: a data directory from before
// they existed keeps its tokens (and the payments made with them) and only gains sweepers, and a
// sweeper owned by another treasury (SETTLEMENT_MNEMONIC changed) is replaced.

export interface LocalChain {
  chain: DevChain;
  tokens: TestTokenAddresses;
  sweepers: SweeperAddresses;
  /** CHAIN_<NETWORK>_* for the four EVM networks, all on this chain. */
  variables: Record<string, string>;
}

export async function startLocalChain(options: {
  dataDir: string;
  port: number;
  /** The treasury address of the service's mnemonic: the sweepers' owner. */
  treasury: Address;
  log: (line: string) => void;
}): Promise<LocalChain> {
  const stateFile = path.join(options.dataDir, 'anvil-state.json');
  const tokensFile = path.join(options.dataDir, 'chain-tokens.json');
  const sweepersFile = path.join(options.dataDir, 'chain-sweepers.json');
  options.log(`Starting a local chain (anvil) on 127.0.0.1:${options.port} (state in ${stateFile})…`);
  const chain = await startDevChain({ binary: ensureAnvilBinary(), port: options.port, stateFile });
  try {
    const publicClient = createPublicClient({ chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) }) as PublicClient;
    const deployer = nodeAccountWallet(chain.rpcUrl, DEV_MINTER_ADDRESS);
    let tokens = readAddresses<TestTokenAddresses>(tokensFile);
    if (!tokens || !(await testTokensDeployed(publicClient, tokens))) {
      options.log('Deploying the test tokens (USDC and USDT for ethereum, polygon, base, arbitrum)…');
      tokens = await deployTestTokens(deployer, publicClient);
      writeFileSync(tokensFile, JSON.stringify(tokens, null, 2) + '\n');
    }
    let sweepers = readAddresses<SweeperAddresses>(sweepersFile);
    if (!sweepers || !(await sweepersDeployed(publicClient, sweepers, options.treasury))) {
      options.log(`Deploying the deposit sweepers (one per network, owned by the treasury ${options.treasury})…`);
      sweepers = await deploySweepers(deployer, publicClient, options.treasury);
      writeFileSync(sweepersFile, JSON.stringify(sweepers, null, 2) + '\n');
    }
    return { chain, tokens, sweepers, variables: devChainVariables(chain.rpcUrl, chain.chainId, tokens, sweepers) };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}

function readAddresses<T>(file: string): T | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}
