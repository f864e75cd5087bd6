import { WorkflowIdReusePolicy } from '@temporalio/client';
import { PAYMENT_EXCEPTION_WORKFLOW, type PaymentExceptionInput } from '../workflows/payment-exception/messages';
import type { Client } from '@temporalio/client';
import { callTemporal, WorkflowAlreadyStartedError } from './temporal-call';

/** Where exception runs start: the Temporal client and the payments' task queue. */
export interface ExceptionRunStarter {
  temporal: Client;
  taskQueue: string;
}

/**
 * Starts an exception's workflow (id = exception id), which tells the merchant and waits for an
 * operator: the one start for every exception recorded outside a payment's run (a provider's late
 * word, the watcher's arrival at a closed run, a reorg after completion; a payment's own run starts
 * its exceptions as children). Idempotent: a second start finds the run.
 */
export async function startExceptionRun(ctx: ExceptionRunStarter, input: PaymentExceptionInput): Promise<void> {
  try {
    await callTemporal(ctx.temporal, input.exceptionId, () =>
      ctx.temporal.workflow.start(PAYMENT_EXCEPTION_WORKFLOW, {
        workflowId: input.exceptionId,
        taskQueue: ctx.taskQueue,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowAlreadyStartedError)) throw err;
  }
}
