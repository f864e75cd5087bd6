import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/domain/ids';
import { createWorker } from '../../src/worker/worker';
import { bundleWorkflowsInChild } from '../../src/worker/workflow-bundle';
import { MerchantIdKey, PaymentStatusKey } from '../../src/workflows/search-attributes';
import { createProbeActivities } from '../fixtures/probe-activities';
import { createMerchant, useTestApp } from '../support/harness';

const ctx = useTestApp();
const PROBE_WORKFLOWS = path.resolve(__dirname, '../fixtures/probe-workflows.ts');

describe('the Temporal harness', () => {
  it('runs a workflow on the dev server through the worker, with activities on real Postgres and search attributes', async () => {
    const merchant = await createMerchant(ctx.app, { name: 'Harness Shop' });
    const worker = await createWorker({
      temporal: ctx.config.temporal,
      activities: createProbeActivities(ctx.db.db),
      workflowsPath: PROBE_WORKFLOWS,
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

  it('runs workflows from code bundled in a child process, as worker.ts does', async () => {
    const merchant = await createMerchant(ctx.app, { name: 'Bundled Shop' });
    const workflowBundle = await bundleWorkflowsInChild(PROBE_WORKFLOWS);
    expect(workflowBundle.code).toContain('probe');
    const worker = await createWorker({ temporal: ctx.config.temporal, activities: createProbeActivities(ctx.db.db), workflowBundle });
    const running = worker.run();
    try {
      const workflowId = `probe-${randomBase62(12)}`;
      const handle = await ctx.temporal.workflow.start('probe', {
        taskQueue: ctx.config.temporal.taskQueue,
        workflowId,
        args: [merchant.id],
        typedSearchAttributes: [{ key: MerchantIdKey, value: merchant.id }],
      });
      expect(await handle.result()).toEqual({ name: `Bundled Shop (${merchant.id})`, workflowId });
    } finally {
      await worker.shutdown();
      await running;
    }
  });

  it('fails to start, naming the cause, when the workflow code does not bundle', async () => {
    await expect(bundleWorkflowsInChild(path.resolve(__dirname, '../fixtures/no-such-workflows.ts'))).rejects.toThrow(
      /bundling the workflow code failed \(exit 1\)/,
    );
  });
});
