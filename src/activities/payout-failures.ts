import { activityInfo, ApplicationFailure } from '@temporalio/activity';
import { inWords } from '../chains/reverts';
import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError, InsufficientFundsError, IntrinsicGasTooLowError } from 'viem';

// Which failures of a payout a retry can fix. Transport trouble
// (RPC down, timeouts, rate limits, a nonce still pending) is transient: Temporal retries it with
// backoff for as long as it lasts, so a chain briefly down loses nothing. A refusal (the transfer
// reverts when the node estimates it, the sender lacks the token or the gas, the recipient is
// refused, or the planner's own balance and credit checks fail) is not fixed by sending again: it is
// given a bounded number of attempts, then the payout is failed for an operator. Only type strings
// leave this module: workflow code never sees a viem class.

/** A retryable refusal, while the bound is not reached. */
export const PAYOUT_REFUSED = 'PayoutRefused';
/** A payout given up: its rows are failed with the reason, and the run waits for an operator's retry. */
export const PAYOUT_FAILED = 'PayoutFailed';

/**
 * The bound for refusals: at least this many attempts of the activity, spanning at least the window
 * (PAYOUT_REFUSAL_WINDOW_SECONDS, a minute by default) since it was first scheduled (with
 * PAYOUT_ACTIVITY's backoff, 1 s doubling to 10 s, about ten attempts over a minute). Why not at
 * once: a refusal can be a node's view that lags the one that confirmed the deposit (a
 * load-balanced RPC), or a transfer into the address still settling; both pass within seconds. Why not longer: each attempt asks the node again for an answer it already gave,
 * and the money waits meanwhile; a minute later it needs a person. One weakness, accepted: a refusal
 * that follows a long transient outage within the same activity counts the outage's attempts, so it
 * fails at its first occurrence (visible and retried by an operator; nothing is lost).
 */
const REFUSAL_ATTEMPTS = 5;

/** A refusal found by our own checks before anything is signed (the planner's balance and credit checks). */
export class PayoutRefusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PayoutRefusal';
  }
}

/** The chain's refusal in `err`, as a sentence without secrets (never a URL), or null for anything a retry may fix. */
export function refusalOf(err: unknown): string | null {
  if (err instanceof PayoutRefusal) return err.reason;
  if (!(err instanceof BaseError)) return null;
  // viem wraps whatever estimateGas met (an HTTP error too) in EstimateGasExecutionError: the cause decides.
  const refused = err.walk(
    (e) =>
      e instanceof ExecutionRevertedError ||
      e instanceof ContractFunctionRevertedError ||
      e instanceof InsufficientFundsError ||
      e instanceof IntrinsicGasTooLowError,
  );
  // A raw transaction's refusal comes back as the node's words, not as a typed error.
  if (!(refused instanceof BaseError))
    return err.walk((e) => e instanceof BaseError && /insufficient funds/i.test(e.details))
      ? 'the sender lacks the native coin for the transfer and its gas'
      : null;
  if (refused instanceof InsufficientFundsError) return 'the sender lacks the native coin for the transfer and its gas';
  if (refused instanceof IntrinsicGasTooLowError) return 'the stored gas limit is below what the transfer needs';
  return `the transfer reverts: ${inWords(refused.shortMessage)}`;
}

/** Whether this attempt has used up the refusal bound (outside an activity, as in a script: at once). */
export function refusalBoundReached(windowMs: number, now = Date.now()): boolean {
  let info: ReturnType<typeof activityInfo>;
  try {
    info = activityInfo();
  } catch {
    return true;
  }
  return info.attempt >= REFUSAL_ATTEMPTS && now - info.scheduledTimestampMs >= windowMs;
}

export const refusedForNow = (reason: string) => ApplicationFailure.retryable(`payout refused: ${reason}`, PAYOUT_REFUSED);
export const givenUp = (reason: string) => ApplicationFailure.nonRetryable(`payout failed: ${reason}`, PAYOUT_FAILED);
