import type { ActivityOptions } from '@temporalio/workflow';

/**
 * Every activity that writes to Postgres: bounded per attempt, retried until Postgres is back, so a
 * payment fact is never dropped. The activities are idempotent, so a retry writes nothing twice.
 */
export const DATABASE_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
