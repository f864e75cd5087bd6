import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';

/**
 * A lazy connection: the API starts, and answers lookups from Postgres, while Temporal is down;
 * calls that need Temporal fail as Unavailable until it is back, and /readyz says so.
 */
export function createTemporalClient(temporal: Config['temporal']): { client: Client; close: () => Promise<void> } {
  const connection = Connection.lazy({ address: temporal.address });
  const client = new Client({ connection, namespace: temporal.namespace });
  return { client, close: () => connection.close() };
}
