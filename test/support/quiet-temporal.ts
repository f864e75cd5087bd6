import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers in tests log state changes at INFO; keep test output to what failed.
try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed in this process by an earlier file.
}
