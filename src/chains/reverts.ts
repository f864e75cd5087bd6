import { BaseError, ExecutionRevertedError } from 'viem';

/**
 * The node ran the call and it reverted (a gas estimate of a transfer the token refuses: the zero
 * address, a blacklisted receiver, a paused token, a balance too low): its reason in words, for an
 * operator. Null for anything else (an unreachable node, a timeout), which a retry may get past.
 */
export function revertReason(err: unknown): string | null {
  if (!(err instanceof BaseError)) return null;
  const revert = err.walk((e) => e instanceof ExecutionRevertedError);
  if (!(revert instanceof ExecutionRevertedError)) return null;
  return inWords(revert.details || revert.shortMessage);
}

// The custom errors our contracts (contracts/*.sol) and common tokens revert with, by selector: a
// node reports only `custom error 0x<selector>`, which tells an operator nothing.
const CUSTOM_ERRORS: Record<string, string> = {
  // DepositSweeper.NotOwner()
  '0x30cd7471': "the network's sweeper is owned by another address than this treasury (check CHAIN_<NETWORK>_SWEEPER)",
  // DepositForwarder.TransferFailed(address,address)
  '0x523c3aaa': 'the token refused the transfer out of the deposit address',
  // DepositForwarder.NotFactory()
  '0x32cc7236': 'the deposit address refused a call that did not come from its sweeper',
  // DepositSweeper.LengthMismatch()
  '0xff633a38': "the sweep's lists of deposits and amounts differ in length",
  // DepositSweeper.DeployFailed(bytes32)
  '0xf1a9a563': "the sweeper could not create a deposit address's forwarder",
  // InsufficientBalance() of our test tokens; ERC20InsufficientBalance(address,uint256,uint256) of OpenZeppelin's
  '0xf4d678b8': 'the sender holds less of the token than the transfer sends',
  '0xe450d38c': 'the sender holds less of the token than the transfer sends',
  // ZeroAddress() of our test tokens; ERC20InvalidReceiver(address) of OpenZeppelin's
  '0xd92e233d': 'the token refuses a transfer to the zero address',
  '0xec442f05': 'the token refuses a transfer to this receiver',
};

/** A node's revert message with any known custom error named in words (an unknown one keeps its selector). */
export function inWords(message: string): string {
  const custom = /custom error (0x[0-9a-f]{8})/i.exec(message);
  if (!custom) return message;
  const words = CUSTOM_ERRORS[custom[1]!.toLowerCase()];
  return words ?? `the contract refused the call with an error this service does not know (selector ${custom[1]!.toLowerCase()})`;
}
