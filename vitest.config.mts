import { defineConfig } from 'vitest/config';

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
    teardownTimeout: 30_000,
  },
});
