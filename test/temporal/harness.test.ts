import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/domain/ids';
import { createWorker } from '../../src/temporal/worker';
import { MerchantIdKey, PaymentStatusKey } from '../../src/workflows/search-attributes';
import { createProbeActivities } from '../fixtures/probe-activities';
import { createMerchant, useTestApp } from '../support/harness';

const ctx = useTestApp();

describe('the Temporal harness', () => {
  it('runs a workflow on the dev server through the worker, with activities on real Postgres and search attributes', async () => {
    const merchant = await createMerchant(ctx.app, { name: 'Harness Shop' });
    const worker = await createWorker({
      temporal: ctx.config.temporal,
      activities: createProbeActivities(ctx.db.db),
      workflowsPath: path.resolve(__dirname, '../fixtures/probe-workflows.ts'),
    });
    const running = worker.run();
    try {
      const workflowId = `probe-${randomBase62(12)}`;
      const handle = await ctx.temporal.workflow.start('probe', {
        taskQueue: ctx.config.temporal.taskQueue,
        workflowId,
        args: [merchant.id],
        typedSearchAttributes: [{ key: MerchantIdKey, value: merchant.id }],
      });
      const result = await handle.result();
      expect(result).toEqual({ name: `Harness Shop (${merchant.id})`, workflowId });

      const description = await handle.describe();
      expect(description.status.name).toBe('COMPLETED');
      expect(description.typedSearchAttributes.get(PaymentStatusKey)).toBe('probed');
      expect(description.typedSearchAttributes.get(MerchantIdKey)).toBe(merchant.id);
    } finally {
      await worker.shutdown();
      await running;
    }
  });
});
