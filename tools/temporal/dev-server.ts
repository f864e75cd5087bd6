import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/workflows/search-attributes';

export interface DevServer {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

/**
 * Starts a Temporal dev server from the installed CLI (the SDK's own download cannot be used on
 * machines without internet), with our search attributes registered.
 */
export async function startDevServer(options: {
  binary: string;
  namespace: string;
  port?: number;
  uiPort?: number;
  /** SQLite file; in memory when absent. */
  dbFilename?: string;
}): Promise<DevServer> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: options.binary },
      namespace: options.namespace,
      ip: '127.0.0.1',
      ...(options.port ? { port: options.port } : {}),
      ...(options.uiPort ? { ui: true, uiPort: options.uiPort } : { ui: false }),
      ...(options.dbFilename ? { dbFilename: options.dbFilename } : {}),
      searchAttributes: SEARCH_ATTRIBUTE_KEYS,
      log: { format: 'pretty', level: 'error' },
    },
  });
  return {
    address: env.address,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : null,
    stop: () => env.teardown(),
  };
}
