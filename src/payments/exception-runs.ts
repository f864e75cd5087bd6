import { WorkflowIdReusePolicy } from '@temporalio/client';
import { PAYMENT_EXCEPTION_WORKFLOW, type PaymentExceptionInput } from '../workflows/payment-exception/messages';
import type { PaymentContext } from './context';
import { callTemporal, WorkflowAlreadyStartedError } from './temporal-call';

/**
 * Starts an exception's workflow (id = exception id), which tells the merchant and waits for an
 * operator; used when the payment's own run has closed. Idempotent: a second start finds the run.
 */
export async function startExceptionRun(ctx: Pick<PaymentContext, 'temporal' | 'config'>, input: PaymentExceptionInput): Promise<void> {
  try {
    await callTemporal(ctx.temporal, input.exceptionId, () =>
      ctx.temporal.workflow.start(PAYMENT_EXCEPTION_WORKFLOW, {
        workflowId: input.exceptionId,
        taskQueue: ctx.config.temporal.taskQueue,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowAlreadyStartedError)) throw err;
  }
}
