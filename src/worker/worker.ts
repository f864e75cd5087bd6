import path from 'node:path';
import { NativeConnection, Worker, type ActivityInboundCallsInterceptor, type ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Config } from '../config';
import { CODE_EXTENSION } from '../project-root';
import { payoutTaskQueue } from '../domain/task-queues';
import { carriesSqlValues, withoutSqlValues } from '../domain/sql-errors';

/** The workflow bundle's entry; named as a file so any loader (tsx, vitest) finds it. */
export const WORKFLOWS_ENTRY = path.join(__dirname, '..', 'workflows', `index${CODE_EXTENSION}`);

export interface CheckoutWorker {
  /** Runs until shutdown() is called or either poller fails. */
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * An activity's failure is logged by the worker and stored in the workflow history
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
 * A delivery attempt's log lines name the delivery (`deliveryId`: one line per failed
 * attempt, naming the delivery), however it runs: the durable activity's id is the delivery's, but a
 * first attempt made as a local activity has the SDK's sequence number for an id, so the name comes
 * from the activity's argument.
 */
export const deliveryInLogs: ActivityInterceptorsFactory = (ctx) => {
  let deliveryId: string | undefined;
  return {
    inbound: {
      execute(input, next) {
        if (ctx.info.activityType === 'deliverWebhook' && typeof input.args[0] === 'string') deliveryId = input.args[0];
        return next(input);
      },
    },
    outbound: {
      getLogAttributes: (attributes, next) => next(deliveryId ? { ...attributes, deliveryId } : attributes),
    },
  };
};

/**
 * The worker that runs our workflows and activities: two pollers on one connection, the workflows'
 * task queue, and the payouts' own queue (domain/task-queues.ts) with `payoutConcurrency` payouts at
 * once. `workflowsPath` defaults to the bundle entry src/workflows/index.ts, which must import
 * nothing that does I/O.
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
  const common = {
    connection,
    namespace: options.temporal.namespace,
    activities: options.activities,
    interceptors: { activity: [() => ({ inbound: sqlValuesOutOfFailures }), deliveryInLogs] },
    ...(options.identity ? { identity: options.identity } : {}),
  };
  const workers = [
    await Worker.create({
      ...common,
      taskQueue: options.temporal.taskQueue,
      ...(options.workflowBundle
        ? { workflowBundle: options.workflowBundle }
        : { workflowsPath: options.workflowsPath ?? WORKFLOWS_ENTRY }),
    }),
    // Activities only: no workflow runs here, so no second workflow cache or sandbox.
    await Worker.create({
      ...common,
      taskQueue: payoutTaskQueue(options.temporal.taskQueue),
      maxConcurrentActivityTaskExecutions: options.temporal.payoutConcurrency,
    }),
  ];
  const shutdown = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  let running: Promise<void> | null = null;
  return {
    run() {
      // One poller failing stops the other, so a supervisor sees the process end rather than half a worker.
      const stopOthersOnFailure = (worker: Worker) =>
        worker.run().catch((err: unknown) => {
          shutdown();
          throw err;
        });
      running ??= Promise.allSettled(workers.map(stopOthersOnFailure)).then(async (ended) => {
        await connection.close();
        const failed = ended.find((e) => e.status === 'rejected');
        if (failed) throw failed.reason;
      });
      return running;
    },
    async shutdown() {
      shutdown();
      await running;
    },
  };
}
