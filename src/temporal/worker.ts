import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../config';

/** The workflow bundle's entry; named as a file so any loader (tsx, vitest) finds it. */
export const WORKFLOWS_ENTRY = path.join(__dirname, '..', 'workflows', 'index.ts');

export interface CheckoutWorker {
  worker: Worker;
  /** Runs until shutdown() is called or the worker fails. */
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * The worker that runs our workflows and activities. `workflowsPath` defaults to the bundle entry
 * src/workflows/index.ts, which must import nothing that does I/O.
 */
export async function createWorker(options: {
  temporal: Config['temporal'];
  activities: object;
  workflowsPath?: string;
  identity?: string;
}): Promise<CheckoutWorker> {
  const connection = await NativeConnection.connect({ address: options.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: options.temporal.namespace,
    taskQueue: options.temporal.taskQueue,
    workflowsPath: options.workflowsPath ?? WORKFLOWS_ENTRY,
    activities: options.activities,
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
