import { BaseError, ExecutionRevertedError } from 'viem';

/**
 * The node ran the call and it reverted (a gas estimate of a transfer the token refuses: the zero
 * address, a blacklisted receiver, a paused token, a balance too low): its reason, for an operator.
 * Null for anything else (an unreachable node, a timeout), which a retry may get past.
 */
export function revertReason(err: unknown): string | null {
  if (!(err instanceof BaseError)) return null;
  const revert = err.walk((e) => e instanceof ExecutionRevertedError);
  if (!(revert instanceof ExecutionRevertedError)) return null;
  return revert.details || revert.shortMessage;
}
