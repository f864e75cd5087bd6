import { ApplicationFailure } from '@temporalio/activity';
import { ProviderError } from '../providers/types';

/** Type of the failure a provider's lasting refusal becomes; workflows list it as non-retryable. */
export const PROVIDER_REJECTED = 'ProviderRejected';

/**
 * An adapter's ProviderError as a Temporal failure: a refusal the same request will meet again is
 * non-retryable (the customer is told at once); silence or a 5xx is left to the retry policy.
 */
export function asActivityFailure(err: unknown): never {
  if (err instanceof ProviderError) {
    if (!err.retryable) throw ApplicationFailure.nonRetryable(err.message, PROVIDER_REJECTED);
    throw ApplicationFailure.retryable(err.message, 'ProviderUnavailable');
  }
  throw err;
}
