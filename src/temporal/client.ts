import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { Config } from '../config';

/**
 * The longest wait between two attempts of one call. The SDK's default grows to 5 s, and a call's
 * deadline does not cut a wait short: an API call that gives up at its deadline (callTemporal) leaves
 * at most this much of a retry behind it.
 */
const MAX_RETRY_WAIT_MS = 500;

/**
 * A lazy connection: the API starts, and answers lookups from Postgres, while Temporal is down;
 * calls that need Temporal fail as Unavailable until it is back, and /readyz says so.
 */
export function createTemporalClient(temporal: Config['temporal']): { client: Client; close: () => Promise<void> } {
  const defaults = defaultGrpcRetryOptions();
  // When the last scheduled retry fires: closing the channel under a pending retry would throw from
  // its timer ("Channel has been shut down"), so close() waits for it (at most MAX_RETRY_WAIT_MS).
  let retriesUntil = 0;
  const retry = makeGrpcRetryInterceptor({
    retryableDecider: defaults.retryableDecider,
    delayFunction: (attempt, status) => {
      const wait = Math.min(MAX_RETRY_WAIT_MS, defaults.delayFunction(attempt, status));
      retriesUntil = Math.max(retriesUntil, Date.now() + wait);
      return wait;
    },
  });
  const connection = Connection.lazy({ address: temporal.address, interceptors: [retry] });
  const client = new Client({ connection, namespace: temporal.namespace });
  return {
    client,
    close: async () => {
      const pending = retriesUntil - Date.now();
      if (pending > 0) await new Promise((resolve) => setTimeout(resolve, pending + 50));
      await connection.close();
    },
  };
}
