import {
  concat,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  isAddressEqual,
  numberToHex,
  parseEventLogs,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { depositForwarderAbi } from './deposit-forwarder-artifact';
import { depositSweeperAbi } from './deposit-sweeper-artifact';

// Deposit addresses as CREATE2 forwarders (contracts/DepositSweeper.sol, docs/settlement.md): each is
// the address of an EIP-1167 clone the network's sweeper deploys on the deposit's first sweep, so it
// is computed here, off-chain, long before it has code. The sweeper's owner (the treasury) pays every
// sweep's gas: a deposit address never needs native coin.

/**
 * The sweeper's ABI with the errors a deposit's transfer reverts with (TransferFailed, NotFactory),
 * which the forwarder raises and the sweeper passes on: decode a failed sweep's revert with this.
 */
export const sweeperAbi = [...depositSweeperAbi, ...depositForwarderAbi.filter((item) => item.type === 'error')] as const;

// EIP-1167: 10 bytes that return the runtime, then the 45-byte runtime around the implementation.
const CLONE_PREFIX: Hex = '0x3d602d80600a3d3981f3363d3d373d3d3d363d73';
const CLONE_SUFFIX: Hex = '0x5af43d82803e903d91602b57fd5bf3';

/** The forwarder implementation every deposit of `sweeper` clones: the sweeper's constructor creates it first (nonce 1). */
export const forwarderImplementation = (sweeper: Address): Address => getContractAddress({ opcode: 'CREATE', from: sweeper, nonce: 1n });

/** The deposit address of `salt` under `sweeper`, deployed or not; equals the contract's `depositAddress(salt)`. */
export function forwarderAddress(sweeper: Address, salt: Hex): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: sweeper,
    salt,
    bytecode: concat([CLONE_PREFIX, forwarderImplementation(sweeper), CLONE_SUFFIX]),
  });
}

/**
 * The salt of deposit number `index`: the index itself as 32 bytes. Mostly zero bytes, which cost a
 * quarter of other bytes in a sweep's calldata; one sweeper serves one network, so the index alone
 * keeps every deposit of the network apart.
 */
export function depositSalt(index: bigint): Hex {
  if (index < 0n) throw new RangeError('a deposit index is not negative');
  return numberToHex(index, { size: 32 });
}

export interface DepositToSweep {
  salt: Hex;
  amount: bigint;
}

/** Calldata of one sweep: `amount` of `token` from each deposit to `to`, all or nothing. */
export function encodeSweep(input: { token: Address; to: Address; deposits: readonly DepositToSweep[] }): Hex {
  return encodeFunctionData({
    abi: depositSweeperAbi,
    functionName: 'sweep',
    args: [input.token, input.to, input.deposits.map((d) => d.salt), input.deposits.map((d) => d.amount)],
  });
}

/** Calldata that sends `amount` of `token` from one deposit straight to `to` (a refund). */
export function encodeForward(input: { token: Address; salt: Hex; to: Address; amount: bigint }): Hex {
  return encodeFunctionData({ abi: depositSweeperAbi, functionName: 'forward', args: [input.token, input.salt, input.to, input.amount] });
}

/**
 * Who a payout's money reaches: its `to`, or for a call of the sweeper's `forward` (a refund sent
 * from a deposit) the address inside the call.
 */
export function payeeOf(row: { toAddress: string; callData: string | null }): string {
  if (!row.callData) return row.toAddress;
  const call = decodeFunctionData({ abi: depositSweeperAbi, data: row.callData as Hex });
  return call.functionName === 'forward' ? call.args[2] : row.toAddress;
}

/** Calldata that sends all native coin at a deposit (sent there by mistake) to `to`. */
export function encodeSweepNative(input: { salt: Hex; to: Address }): Hex {
  return encodeFunctionData({ abi: depositSweeperAbi, functionName: 'sweepNative', args: [input.salt, input.to] });
}

/** The deposits a mined sweep moved, in order, from the `Swept` events `sweeper` itself emitted. */
export function sweptDepositsOf(
  receipt: Pick<TransactionReceipt, 'logs'>,
  sweeper: Address,
): { salt: Hex; deposit: Address; token: Address; amount: bigint }[] {
  // A token's own logs in the same receipt could imitate the event; only the sweeper's count.
  const own = receipt.logs.filter((log) => isAddressEqual(log.address, sweeper));
  return parseEventLogs({ abi: depositSweeperAbi, eventName: 'Swept', logs: own }).map(({ args }) => ({
    salt: args.salt,
    deposit: getAddress(args.deposit),
    token: getAddress(args.token),
    amount: args.amount,
  }));
}
