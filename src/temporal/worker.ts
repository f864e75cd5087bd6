import path from 'node:path';
import { NativeConnection, Worker, type ActivityInboundCallsInterceptor } from '@temporalio/worker';
import type { Config } from '../config';
import { carriesSqlValues, withoutSqlValues } from '../domain/sql-errors';

/** The workflow bundle's entry; named as a file so any loader (tsx, vitest) finds it. */
export const WORKFLOWS_ENTRY = path.join(__dirname, '..', 'workflows', 'index.ts');

export interface CheckoutWorker {
  worker: Worker;
  /** Runs until shutdown() is called or the worker fails. */
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Decisions §13: an activity's failure is logged by the worker and stored in the workflow history
 * (the Temporal UI shows it), so a failed statement's values are cut before either sees them.
 */
export const sqlValuesOutOfFailures: ActivityInboundCallsInterceptor = {
  async execute(input, next) {
    try {
      return await next(input);
    } catch (err) {
      throw carriesSqlValues(err) ? withoutSqlValues(err as Error) : err;
    }
  },
};

/**
 * The worker that runs our workflows and activities. `workflowsPath` defaults to the bundle entry
 * src/workflows/index.ts, which must import nothing that does I/O.
 */
export async function createWorker(options: {
  temporal: Config['temporal'];
  activities: object;
  workflowsPath?: string;
  /** Code bundled beforehand (bundleWorkflowsInChild, as worker.ts does); otherwise Worker.create bundles workflowsPath itself. */
  workflowBundle?: { code: string };
  identity?: string;
}): Promise<CheckoutWorker> {
  const connection = await NativeConnection.connect({ address: options.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: options.temporal.namespace,
    taskQueue: options.temporal.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: options.workflowsPath ?? WORKFLOWS_ENTRY }),
    activities: options.activities,
    interceptors: { activity: [() => ({ inbound: sqlValuesOutOfFailures })] },
    ...(options.identity ? { identity: options.identity } : {}),
  });
  let running: Promise<void> | null = null;
  return {
    worker,
    run() {
      running ??= worker.run().finally(() => connection.close());
      return running;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
