import {
  encodeDeployData,
  getAddress,
  getContractAddress,
  isAddressEqual,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
  type PublicClient,
} from 'viem';
import { walletClientFor, type ChainClient } from './clients';
import { depositSweeperAbi, depositSweeperBytecode } from './deposit-sweeper-artifact';

// A network's deposit sweeper (contracts/DepositSweeper.sol), deployed by the operator on a real
// network: sent and paid for by the treasury, which is also its owner. The dev chain's sweepers are
// deployed by tools/dev instead, from anvil's minter account.

/** What is at a configured sweeper address. */
export type SweeperAt = { kind: 'no-code' } | { kind: 'not-a-sweeper' } | { kind: 'sweeper'; owner: Address };

export async function sweeperAt(publicClient: PublicClient, address: Address): Promise<SweeperAt> {
  const code = await publicClient.getCode({ address });
  if (!code || code === '0x') return { kind: 'no-code' };
  try {
    const owner = await publicClient.readContract({ address, abi: depositSweeperAbi, functionName: 'owner' });
    return { kind: 'sweeper', owner: getAddress(owner) };
  } catch {
    return { kind: 'not-a-sweeper' };
  }
}

export const isOwnedBy = (at: SweeperAt, owner: Address): boolean => at.kind === 'sweeper' && isAddressEqual(at.owner, owner);

/** The deployment as it will be sent: its gas and fees fixed up front, so the balance check and the transaction agree. */
export interface SweeperDeploymentPlan {
  data: Hex;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  nonce: number;
  /** Where the sweeper will be: fixed by the sender and its nonce, so a reorg that re-mines the transaction keeps it. */
  address: Address;
  /** The most the transaction can cost (gas × max fee): what the sender's balance must cover. */
  maxCost: bigint;
}

export async function planSweeperDeployment(publicClient: PublicClient, owner: Address): Promise<SweeperDeploymentPlan> {
  const data = encodeDeployData({ abi: depositSweeperAbi, bytecode: depositSweeperBytecode, args: [owner] });
  const [gas, fees, nonce] = await Promise.all([
    publicClient.estimateGas({ account: owner, data }),
    publicClient.estimateFeesPerGas(),
    publicClient.getTransactionCount({ address: owner, blockTag: 'pending' }),
  ]);
  return {
    data,
    gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    nonce,
    address: getContractAddress({ from: owner, nonce: BigInt(nonce) }),
    maxCost: gas * fees.maxFeePerGas,
  };
}

/** Sends the planned deployment, signed locally by the owner's own key. */
export function sendSweeperDeployment(client: ChainClient, owner: LocalAccount, plan: SweeperDeploymentPlan): Promise<Hash> {
  return walletClientFor(client, owner).sendTransaction({
    account: owner,
    chain: client.chain,
    data: plan.data,
    gas: plan.gas,
    maxFeePerGas: plan.maxFeePerGas,
    maxPriorityFeePerGas: plan.maxPriorityFeePerGas,
    nonce: plan.nonce,
  });
}
