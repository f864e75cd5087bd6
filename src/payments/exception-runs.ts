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
 * The one use case for an exception recorded outside a payment's run (a provider's late word, the
 * watcher's arrival at a closed run, a reorg after completion): `record` writes it (idempotently:
 * one row per payment, kind and arrival, its id stable across retries), then its workflow starts
 * (id = exception id), which tells the merchant and waits for an operator. Record first, start
 * second, both idempotent: a crash between them is repaired by the caller's retry (the provider's
 * redelivery, the watcher's re-sent log, the reorg watch's next pass), which finds the same row and
 * starts its run. `startRun: false` records only. Inside a payment's run the start is a workflow
 * command instead (`startChild` in workflows/checkout-session/ports.ts), with the same id and policy.
 * Returns what `record` returned, null when it recorded nothing.
 */
export async function recordException<E extends { id: string }>(
  ctx: ExceptionRunStarter,
  paymentId: string,
  record: () => Promise<E | null>,
  options: { startRun?: boolean } = {},
): Promise<E | null> {
  const exception = await record();
  if (exception && options.startRun !== false) await startExceptionRun(ctx, { exceptionId: exception.id, paymentId });
  return exception;
}

/** Starts an exception's workflow (id = exception id). Idempotent: a second start finds the run. */
async function startExceptionRun(ctx: ExceptionRunStarter, input: PaymentExceptionInput): Promise<void> {
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
