import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/**
 * Every activity that writes to Postgres: bounded per attempt, retried until Postgres is back, so a
 * payment fact is never dropped. The activities are idempotent, so a retry writes nothing twice.
 */
export const DATABASE_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * The same writes as local activities: run by the worker inside the workflow task that asks for
 * them, recorded as one marker, with no activity task through the server and no workflow task to
 * carry the result back. For short statements only (a local activity holds its workflow task); a
 * worker that dies mid-write loses the task and the next one runs the idempotent write again.
 * Retried like DATABASE_ACTIVITY: past a minute the SDK waits on a timer between attempts.
 */
export const LOCAL_DATABASE_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: DATABASE_ACTIVITY.retry,
};
