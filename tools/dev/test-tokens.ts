import {
  encodeFunctionData,
  getAddress,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { ASSETS, EVM_NETWORKS, type Asset, type EvmNetwork } from '../../src/domain/assets';
import type { NodeAccountSender } from './dev-accounts';
import type { SweeperAddresses } from './dev-sweepers';
import { testTokenAbi, testTokenBytecode } from './test-token-artifact';
import { testTokenNoReturnAbi, testTokenNoReturnBytecode } from './test-token-no-return-artifact';

// The project's own stablecoins for the dev chain: one USDC-like (contracts/TestToken.sol) and one
// USDT-like contract (contracts/TestTokenNoReturn.sol, whose transfer returns nothing, as Tether's
// does on Ethereum) per EVM network, all on the one local chain, so that each network's watcher sees
// only its own tokens, as it would on separate chains. The deployer is the only minter.

export type TestTokenAddresses = Record<EvmNetwork, Record<Asset, Address>>;

type Deployer = WalletClient<Transport, Chain, Account>;

const TOKEN_NAMES: Readonly<Record<Asset, string>> = { USDC: 'USD Coin', USDT: 'Tether USD' };

/** Deploys the eight contracts and waits for them; addresses follow the deployer's nonce. */
export async function deployTestTokens(deployer: Deployer, publicClient: PublicClient): Promise<TestTokenAddresses> {
  const pairs = EVM_NETWORKS.flatMap((network) => ASSETS.map((asset) => ({ network, asset })));
  // Explicit nonces: the transactions go out back to back instead of one block round trip each.
  let nonce = await publicClient.getTransactionCount({ address: deployer.account.address, blockTag: 'pending' });
  const hashes: Hash[] = [];
  for (const { network, asset } of pairs) {
    const args = [`${TOKEN_NAMES[asset]} (${network}, dev)`, asset] as const;
    hashes.push(
      await (asset === 'USDT'
        ? deployer.deployContract({ abi: testTokenNoReturnAbi, bytecode: testTokenNoReturnBytecode, args, nonce: nonce++ })
        : deployer.deployContract({ abi: testTokenAbi, bytecode: testTokenBytecode, args, nonce: nonce++ })),
    );
  }
  const receipts = await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 })));
  const addresses = Object.fromEntries(EVM_NETWORKS.map((n) => [n, {}])) as TestTokenAddresses;
  receipts.forEach((receipt, i) => {
    const { network, asset } = pairs[i]!;
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${asset} for ${network} failed`);
    // Checksummed, as the config requires of token addresses (the receipt's is lowercase).
    addresses[network][asset] = getAddress(receipt.contractAddress);
  });
  return addresses;
}

/** Whether every remembered token still has code (a dev chain whose state was reset has none). */
export async function testTokensDeployed(publicClient: PublicClient, addresses: TestTokenAddresses): Promise<boolean> {
  const all = EVM_NETWORKS.flatMap((n) => ASSETS.map((a) => addresses[n]?.[a]));
  if (all.some((a) => !a)) return false;
  const codes = await Promise.all(all.map((address) => publicClient.getCode({ address: address })));
  return codes.every((code) => code !== undefined && code !== '0x');
}

/** Mints `amount` token units (micro units for these 6-decimal tokens) to `to`, sent by the node-held minter. */
export async function mintTestTokens(input: { minter: NodeAccountSender; token: Address; to: Address; amount: bigint }): Promise<Hash> {
  const data = encodeFunctionData({ abi: testTokenAbi, functionName: 'mint', args: [input.to, input.amount] });
  const receipt = await input.minter.execute({ to: input.token, data });
  if (receipt.status !== 'success') throw new Error(`mint to ${input.to} reverted`);
  return receipt.transactionHash;
}

/** The CHAIN_<NETWORK>_* variables that point the service at the dev chain, these tokens and sweepers. */
export function devChainVariables(
  rpcUrl: string,
  chainId: number,
  tokens: TestTokenAddresses,
  sweepers: SweeperAddresses,
): Record<string, string> {
  return Object.fromEntries(
    EVM_NETWORKS.flatMap((n) => {
      const prefix = `CHAIN_${n.toUpperCase()}_`;
      return [
        [`${prefix}RPC_URL`, rpcUrl],
        [`${prefix}CHAIN_ID`, String(chainId)],
        [`${prefix}USDC`, tokens[n].USDC],
        [`${prefix}USDT`, tokens[n].USDT],
        [`${prefix}SWEEPER`, sweepers[n]],
        [`${prefix}CONFIRMATIONS`, '1'],
      ];
    }),
  );
}
