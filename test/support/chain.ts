import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  parseEther,
  type Address,
  type Hash,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, inject } from 'vitest';
import { ensureAnvilBinary } from '../../tools/dev/anvil-binary';
import { createChainClient, type ChainClient } from '../../src/chains/clients';
import { DEV_MINTER_ADDRESS, devChain, nodeAccountSender, nodeAccountWallet, type NodeAccountSender } from '../../tools/dev/dev-accounts';
import { DEV_CHAIN_ID, startDevChain, type DevChain } from '../../tools/dev/dev-chain';
import { testTokenAbi, testTokenBytecode } from '../../tools/dev/test-token-artifact';
import { deployTestTokens, devChainVariables, mintTestTokens, type TestTokenAddresses } from '../../tools/dev/test-tokens';
import { deploySweepers, devTreasuryAddress, type SweeperAddresses } from '../../tools/dev/dev-sweepers';
import type { EvmNetwork } from '../../src/domain/assets';

// Helpers for tests against a real anvil: the run's shared chain (global setup) or a private one
// for a test that rewinds or reorganises the chain, which would disturb every other file.

export interface TestChain {
  rpcUrl: string;
  tokens: TestTokenAddresses;
  /** Each network's deposit sweeper, owned by the development treasury. */
  sweepers: SweeperAddresses;
  publicClient: PublicClient;
  /** The dev minter, sending through the node (one per chain, so this file's mints queue). */
  minter: NodeAccountSender;
  /** anvil_* and evm_* methods: mine, snapshot, revert, set balances. */
  control: ReturnType<typeof createTestClient>;
}

export function sharedChain(): TestChain {
  return testChain(inject('chainRpcUrl'), inject('chainTokens'), inject('chainSweepers'));
}

/** A private anvil with its own tokens and sweepers; stop it in afterAll. */
export async function privateChain(): Promise<TestChain & { stop: DevChain['stop'] }> {
  const chain = await startDevChain({ binary: ensureAnvilBinary() });
  const publicClient = publicClientFor(chain.rpcUrl);
  const deployer = nodeAccountWallet(chain.rpcUrl, DEV_MINTER_ADDRESS);
  const tokens = await deployTestTokens(deployer, publicClient);
  const sweepers = await deploySweepers(deployer, publicClient, devTreasuryAddress());
  return { ...testChain(chain.rpcUrl, tokens, sweepers), stop: chain.stop };
}

/**
 * A private anvil for this test file, with every EVM network pointed at it and `confirmations` each,
 * written into `overrides` (pass the same object to useTestApp) before the file's app starts; the
 * chain is handed to `started` in beforeAll and stopped in afterAll.
 */
export function usePrivateChain(
  overrides: Record<string, string>,
  confirmations: number,
  started: (chain: TestChain & { stop: DevChain['stop'] }) => void,
): void {
  let chain: (TestChain & { stop: DevChain['stop'] }) | undefined;
  beforeAll(async () => {
    chain = await privateChain();
    const vars = devChainVariables(chain.rpcUrl, DEV_CHAIN_ID, chain.tokens, chain.sweepers);
    for (const key of Object.keys(vars)) if (key.endsWith('_CONFIRMATIONS')) vars[key] = String(confirmations);
    Object.assign(overrides, vars);
    started(chain);
  });
  afterAll(() => chain?.stop());
}

function testChain(rpcUrl: string, tokens: TestTokenAddresses, sweepers: SweeperAddresses): TestChain {
  return {
    rpcUrl,
    tokens,
    sweepers,
    publicClient: publicClientFor(rpcUrl),
    minter: nodeAccountSender(rpcUrl, DEV_MINTER_ADDRESS),
    control: createTestClient({ mode: 'anvil', chain: devChain(rpcUrl), transport: http(rpcUrl) }),
  };
}

const publicClientFor = (rpcUrl: string) => createPublicClient({ chain: devChain(rpcUrl), transport: http(rpcUrl) }) as PublicClient;

export function clientFor(chain: TestChain, network: EvmNetwork, confirmations = 1, transport?: Transport): ChainClient {
  return createChainClient(
    { network, rpcUrl: chain.rpcUrl, chainId: DEV_CHAIN_ID, confirmations, tokens: chain.tokens[network] },
    { transport },
  );
}

/** A fresh account of the test's own, with ether for gas: its nonces are nobody else's. */
export async function newPayer(chain: TestChain): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.control.setBalance({ address: account.address, value: parseEther('10') });
  return account;
}

export const randomAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

export function mint(chain: TestChain, token: Address, to: Address, amount: bigint): Promise<Hash> {
  return mintTestTokens({ minter: chain.minter, token, to, amount });
}

/** `from` pays `amount` of `token` to `to` and waits for the receipt. */
export async function pay(chain: TestChain, from: PrivateKeyAccount, token: Address, to: Address, amount: bigint) {
  const wallet = createWalletClient({ account: from, chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) });
  const hash = await wallet.writeContract({ address: token, abi: testTokenAbi, functionName: 'transfer', args: [to, amount] });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  // A transfer that reverted (a payer short of what it sends) would leave the test waiting for a credit.
  if (receipt.status !== 'success') throw new Error(`the transfer of ${amount} to ${to} reverted`);
  return receipt;
}

/** The token balance now, or as of `blockNumber` (a deposit's block: before the payouts that follow it moved the money on). */
export function balanceOf(chain: TestChain, token: Address, owner: Address, blockNumber?: bigint): Promise<bigint> {
  return chain.publicClient.readContract({
    address: token,
    abi: testTokenAbi,
    functionName: 'balanceOf',
    args: [owner],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  });
}

/** A fresh customer wallet with `amount` of `token`, paying all of it into `to` (a customer paying from their own wallet). */
export async function payFromWallet(chain: TestChain, token: Address, to: Address, amount: bigint) {
  const payer = await newPayer(chain);
  await mint(chain, token, payer.address, amount);
  return pay(chain, payer, token, to, amount);
}

/**
 * An ERC-20 contract no deployment configures, deployed and minted by a fresh account of the test's
 * own, and `pay` sends `amount` of it into `to` from a fresh wallet. Never the shared chain's dev
 * minter: a deploy from it with a nonce the test chose, at a fee the test's wallet chose, replaces
 * another file's pending mint or delivery of that nonce, which is then never mined.
 */
export async function strangerToken(
  chain: TestChain,
): Promise<{ token: Address; pay: (to: Address, amount: bigint) => Promise<TransactionReceipt> }> {
  const owner = await newPayer(chain);
  const wallet = createWalletClient({ account: owner, chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) });
  const deployed = await chain.publicClient.waitForTransactionReceipt({
    hash: await wallet.deployContract({ abi: testTokenAbi, bytecode: testTokenBytecode, args: ['Stranger USD', 'STRNGR'] }),
    pollingInterval: 50,
  });
  if (deployed.status !== 'success' || !deployed.contractAddress) throw new Error('deploying the stranger token failed');
  const token = getAddress(deployed.contractAddress);
  return {
    token,
    pay: async (to, amount) => {
      const payer = await newPayer(chain);
      const minted = await chain.publicClient.waitForTransactionReceipt({
        hash: await wallet.writeContract({ address: token, abi: testTokenAbi, functionName: 'mint', args: [payer.address, amount] }),
        pollingInterval: 50,
      });
      if (minted.status !== 'success') throw new Error('minting the stranger token failed');
      return pay(chain, payer, token, to, amount);
    },
  };
}
