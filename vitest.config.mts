import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The files that take longest, longest first (measured on the 2-core machine; docs/testing.md).
// Vitest orders by the durations it cached on an earlier run, and a clean checkout (CI) has none:
// by file size alone, a two-minute file could start last and run alone at the end.
const LONGEST = [
  'test/bench/bench.test.ts',
  'test/temporal/game-day.test.ts',
  'test/temporal/topology.test.ts',
  'test/exceptions/refund-recovery.test.ts',
  'test/payouts/worker-kills.test.ts',
  'test/dashboard/navigation.browser.test.ts',
  'test/checkout/page-states.browser.test.ts',
  'test/exceptions/refund.test.ts',
  'test/payouts/failures.test.ts',
  'test/dashboard/money.browser.test.ts',
  'test/proof/settlement-runs.property.test.ts',
  'test/checkout/live-status.browser.test.ts',
  'test/hosted/customer-pages.browser.test.ts',
  'test/settlement/batched.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST.indexOf(path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join('/'));
      return at < 0 ? LONGEST.length : at;
    };
    // A stable sort: every other file keeps vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/support/global-setup.ts'],
    setupFiles: ['./test/support/quiet-temporal.ts'],
    // Each file gets its own database; files run in parallel on two forks (the CI machine has 2 cores).
    pool: 'forks',
    maxWorkers: 2,
    // A fork runs file after file in one process: each file's own database, Temporal task queue and
    // chain addresses keep files apart, and the modules (the app, Temporal's worker, the workflow
    // bundle) load once per fork instead of once per file, which was a third of the suite's time.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    sequence: { sequencer: LongestFirst },
    teardownTimeout: 30_000,
  },
});
