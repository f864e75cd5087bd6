import { WORKFLOWS_ENTRY } from '../src/worker/worker';
import { cachedWorkflowBundle, WORKER_BUNDLE_CACHE } from '../src/worker/workflow-bundle';

// Fills worker.ts's workflow bundle cache ahead of the first start: the Dockerfile runs it, so a
// container's workers start without bundling (its user cannot write node_modules at run time).
cachedWorkflowBundle(WORKFLOWS_ENTRY, {
  ...WORKER_BUNDLE_CACHE,
  onWriteError: (err) => {
    throw err;
  },
}).then(
  ({ cached }) => console.log(`workflow bundle ${cached ? 'already cached' : 'bundled and cached'} in ${WORKER_BUNDLE_CACHE.dir}`),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
