import {
  getAddress,
  isAddressEqual,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { depositSweeperAbi, depositSweeperBytecode } from '../../src/chains/deposit-sweeper-artifact';
import { settlementKeys } from '../../src/chains/derivation';
import { EVM_NETWORKS, type EvmNetwork } from '../../src/domain/assets';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';

// The deposit sweeper (contracts/DepositSweeper.sol) of each EVM network on the dev chain: one per
// network, as each has its own tokens, so that each network's deposit addresses are its own. Owned by
// the treasury of the mnemonic the service runs with, the only key that may sweep.

export type SweeperAddresses = Record<EvmNetwork, Address>;

type Deployer = WalletClient<Transport, Chain, Account>;

/** The treasury of the development mnemonic, which the tests and the bench run with. */
export const devTreasuryAddress = (): Address => settlementKeys(DEV_SETTLEMENT_MNEMONIC).treasury.address;

/** Deploys the four sweepers, owned by `owner`, and waits for them; addresses follow the deployer's nonce. */
export async function deploySweepers(deployer: Deployer, publicClient: PublicClient, owner: Address): Promise<SweeperAddresses> {
  // Explicit nonces: the transactions go out back to back instead of one block round trip each.
  let nonce = await publicClient.getTransactionCount({ address: deployer.account.address, blockTag: 'pending' });
  const hashes: Hash[] = [];
  for (const _ of EVM_NETWORKS) {
    hashes.push(await deployer.deployContract({ abi: depositSweeperAbi, bytecode: depositSweeperBytecode, args: [owner], nonce: nonce++ }));
  }
  const receipts = await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 })));
  return Object.fromEntries(
    receipts.map((receipt, i) => {
      const network = EVM_NETWORKS[i]!;
      if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying the sweeper for ${network} failed`);
      // Checksummed, as the config requires of contract addresses (the receipt's is lowercase).
      return [network, getAddress(receipt.contractAddress)];
    }),
  ) as SweeperAddresses;
}

/** Whether every remembered sweeper still has code and is owned by `owner` (another mnemonic has another treasury). */
export async function sweepersDeployed(publicClient: PublicClient, addresses: Partial<SweeperAddresses>, owner: Address): Promise<boolean> {
  const all = EVM_NETWORKS.map((n) => addresses[n]);
  if (all.some((a) => !a)) return false;
  const owners = await Promise.all(
    all.map((address) => publicClient.readContract({ address: address!, abi: depositSweeperAbi, functionName: 'owner' }).catch(() => null)),
  );
  return owners.every((o) => o !== null && isAddressEqual(o, owner));
}
