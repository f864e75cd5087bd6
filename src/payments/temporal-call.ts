import {
  ActivityFailure,
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { RetryState, type SearchAttributePair } from '@temporalio/common';
import { AppError, FAILURE_CODES, isUnavailable, type ErrorCode, type ErrorDetail } from '../domain/errors';
import type { PaymentContext } from './context';

/** Every call from the API to Temporal gives up after this, so no request waits on Temporal for longer. */
export const TEMPORAL_CALL_DEADLINE_MS = 5000;
/** How long after the deadline the call's own deadline error may take to arrive before the timer answers. */
const DEADLINE_GRACE_MS = 200;

/**
 * The workflow has closed (or never ran): a signal or update has no one to reach. A Conflict for a
 * caller that does not decide otherwise.
 */
export class WorkflowClosedError extends AppError {
  constructor(
    readonly workflowId: string,
    refused: string,
  ) {
    super('Conflict', refused);
    this.name = 'WorkflowClosedError';
  }
}

/**
 * The workflow refused what it was asked with a typed failure (FAILURE_CODES): its own reason, which
 * the caller passes on rather than trying another run.
 */
export class WorkflowRefusedError extends AppError {
  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(code, message, details ? { details } : {});
    this.name = 'WorkflowRefusedError';
  }
}

/** A start under a business id that already has a run: never a second run. A Conflict for a caller that does not decide otherwise. */
export class WorkflowAlreadyStartedError extends AppError {
  constructor(readonly workflowId: string) {
    super('Conflict', 'This payment is already under way.');
    this.name = 'WorkflowAlreadyStartedError';
  }
}

/**
 * The one way the API calls Temporal (start, signal, update, describe): one deadline and one mapping
 * of everything that can go wrong into the envelope, so no Temporal error reaches a
 * route as a 500. Unreachable or too slow is `Unavailable` (retry); an update the workflow refused
 * with a typed failure is that failure's code (FAILURE_CODES) and message; any other refusal is
 * `Conflict` with the caller's `refused` sentence; a closed workflow or a duplicate start are typed
 * Conflicts the caller may decide on.
 */
export async function callTemporal<T>(
  temporal: Client,
  workflowId: string,
  call: () => Promise<T>,
  refused = 'The payment can no longer do that.',
  deadline = Date.now() + TEMPORAL_CALL_DEADLINE_MS,
): Promise<T> {
  // The deadline bounds each gRPC attempt, not the client's retry back-off between attempts (100 ms
  // growing 1.7× to 5 s): with Temporal refusing connections, a call ended 1–2 s past it. The timer
  // answers just after the deadline, so a call in flight ends on its own deadline error first (an
  // update sent but unanswered says so, below); an attempt the client still makes after it fails at
  // once on the same deadline. When the timer answers, whether an earlier attempt reached Temporal is
  // unknown: every call of ours is idempotent, so it says that repeating is safe, never that nothing changed.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError('Unavailable', 'The payment engine did not answer in time. Repeating the same request is safe.')),
      Math.max(0, deadline - Date.now()) + DEADLINE_GRACE_MS,
    );
  });
  try {
    return await Promise.race([temporal.connection.withDeadline(deadline, call), late]);
  } catch (err) {
    throw temporalCallError(err, workflowId, refused);
  } finally {
    clearTimeout(timer);
  }
}

const UNAVAILABLE = 'The payment engine is unavailable right now; nothing was changed. Please retry in a moment.';

export function temporalCallError(err: unknown, workflowId: string, refused: string): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof WorkflowNotFoundError) return new WorkflowClosedError(workflowId, refused);
  if (err instanceof WorkflowExecutionAlreadyStartedError) return new WorkflowAlreadyStartedError(workflowId);
  // The update was sent but its answer did not come within the deadline: it may still complete in
  // the workflow, and every update of ours is idempotent, so asking again is safe.
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
    return new AppError(
      'Unavailable',
      'The payment engine did not answer in time; the action may still complete. Repeating the same request is safe.',
    );
  }
  if (err instanceof WorkflowUpdateFailedError) return refusal(err, refused);
  if (isUnavailable(err)) return new AppError('Unavailable', UNAVAILABLE);
  return err;
}

/** The envelope's details a typed failure carries (its first detail's `details`), if any. */
function detailsOf(failure: ApplicationFailure): ErrorDetail[] | undefined {
  const first: unknown = failure.details?.[0];
  if (typeof first !== 'object' || first === null || !('details' in first) || !Array.isArray(first.details)) return undefined;
  return (first.details as unknown[]).filter(
    (d): d is ErrorDetail =>
      typeof d === 'object' && d !== null && 'path' in d && typeof d.path === 'string' && 'message' in d && typeof d.message === 'string',
  );
}

/** What the workflow refused, as the envelope says it: the typed failure's code and message, or the caller's Conflict. */
function refusal(err: WorkflowUpdateFailedError, refused: string): AppError {
  const chain: Error[] = [];
  for (let e: unknown = err.cause; e instanceof Error && chain.length < 10; e = e.cause) chain.push(e);
  const typed = chain.find(
    (e): e is ApplicationFailure => e instanceof ApplicationFailure && typeof e.type === 'string' && e.type in FAILURE_CODES,
  );
  if (typed) {
    const code = FAILURE_CODES[typed.type!]!;
    // A validation failure names the input in a sentence of its own, as does a failure named by its
    // code; any other says what refused it.
    const asIs = code === 'ValidationError' || typed.type === code;
    return new WorkflowRefusedError(
      code,
      asIs ? typed.message : `${refused.replace(/\.$/, '')}: ${typed.message.replace(/\.$/, '')}.`,
      detailsOf(typed),
    );
  }
  // An activity that ran out of its bounded attempts on a reason a retry may get past (a node or a
  // database unreachable): nothing was done, and the same request may succeed later.
  const activity = chain.find((e): e is ActivityFailure => e instanceof ActivityFailure);
  if (activity && (activity.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED || activity.retryState === RetryState.TIMEOUT)) {
    const last = activity.cause?.message ?? activity.message;
    return new AppError(
      'Unavailable',
      `${refused.replace(/\.$/, '')} right now: ${last.replace(/\.$/, '')} (after every retry). Please retry in a moment.`,
    );
  }
  return new AppError('Conflict', refused);
}

/**
 * Starts a payment's workflow under its business id, which must be new (a second start is an error,
 * never a second run), giving up at `deadline` (epoch ms).
 */
export async function startPaymentWorkflow(
  ctx: PaymentContext,
  options: { workflowType: string; workflowId: string; args: unknown[]; searchAttributes: SearchAttributePair[] },
  deadline = Date.now() + TEMPORAL_CALL_DEADLINE_MS,
): Promise<void> {
  await callTemporal(
    ctx.temporal,
    options.workflowId,
    () =>
      ctx.temporal.workflow.start(options.workflowType, {
        workflowId: options.workflowId,
        taskQueue: ctx.config.temporal.taskQueue,
        args: options.args,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        typedSearchAttributes: options.searchAttributes,
      }),
    undefined,
    deadline,
  );
}
