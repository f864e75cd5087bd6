import { describe, expect, it } from 'vitest';
import { replayCommitted } from './histories';

// Every workflow type the worker runs has committed histories of its main paths, and they all
// replay against the current code (the runs behind them live in the replay-*.test.ts files).
const WORKFLOW_TYPES = [
  'checkout-session',
  'simple-order',
  'payment-link',
  'webhook-delivery',
  'payment-exception',
  'payment-refund',
  'settlement-run',
];

describe('committed workflow histories', () => {
  it('replay against the current workflow code, for every workflow type', async () => {
    const files = await replayCommitted();
    for (const type of WORKFLOW_TYPES) {
      expect(files.filter((f) => f.startsWith(`${type}-`)).length, `histories of ${type}`).toBeGreaterThanOrEqual(2);
    }
  });
});
