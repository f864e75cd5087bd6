import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { AppError, isUnavailable } from '../domain/errors';
import type { PaymentContext } from './context';

/** Every call from the API to Temporal gives up after this, so no request waits on Temporal for longer. */
export const TEMPORAL_CALL_DEADLINE_MS = 5000;

/** The workflow has closed (or never ran): a signal or update has no one to reach. */
export class WorkflowClosedError extends Error {
  constructor(readonly workflowId: string) {
    super(`workflow ${workflowId} is closed`);
    this.name = 'WorkflowClosedError';
  }
}

/**
 * The one way the API calls Temporal: one deadline and one mapping of what can go wrong. Unreachable
 * or too slow is `Unavailable` (nothing happened, retry); a closed workflow is WorkflowClosedError for
 * the caller to decide; an update the workflow refused is `Conflict` with the caller's message.
 */
export async function callTemporal<T>(temporal: Client, workflowId: string, call: () => Promise<T>, refused = 'The payment can no longer do that.'): Promise<T> {
  try {
    return await temporal.connection.withDeadline(Date.now() + TEMPORAL_CALL_DEADLINE_MS, call);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new WorkflowClosedError(workflowId);
    if (err instanceof WorkflowUpdateFailedError) throw new AppError('Conflict', refused);
    if (isUnavailable(err)) throw new AppError('Unavailable', 'The payment engine is unavailable right now; nothing was changed. Please retry in a moment.');
    throw err;
  }
}

/** Starts a payment's workflow under its business id, which must be new (a second start is an error, never a second run). */
export async function startPaymentWorkflow(
  ctx: PaymentContext,
  options: { workflowType: string; workflowId: string; args: unknown[]; searchAttributes: SearchAttributePair[] },
): Promise<void> {
  await callTemporal(ctx.temporal, options.workflowId, () =>
    ctx.temporal.workflow.start(options.workflowType, {
      workflowId: options.workflowId,
      taskQueue: ctx.config.temporal.taskQueue,
      args: options.args,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      typedSearchAttributes: options.searchAttributes,
    }),
  );
}
