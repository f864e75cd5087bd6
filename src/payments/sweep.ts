import { deleteUnstartedSession, listUnstartedSessions, markWorkflowStarted } from '../db/queries/checkout-sessions';
import { purgeDashboardLeftovers } from '../db/queries/dashboard';
import { purgeExpiredIdempotencyKeys } from '../db/queries/idempotency-keys';
import { deleteUnstartedSimpleOrder, listUnstartedSimpleOrders, markSimpleOrderStarted } from '../db/queries/simple-orders';
import { AppError, isUnavailable } from '../domain/errors';
import type { PaymentContext } from './context';
import { sweepUnstartedRefunds } from './payment-refunds';
import { purgeOldRequestLog } from './request-log';
import { callTemporal, WorkflowClosedError } from './temporal-call';
import { sweepOrphanedDeliveries } from './webhook-deliveries';

/** A row still invisible after this was left by a process that died between its insert and its workflow's start. */
export const UNSTARTED_AFTER_SECONDS = 30;

const KINDS = [
  { list: listUnstartedSessions, started: markWorkflowStarted, discard: deleteUnstartedSession },
  { list: listUnstartedSimpleOrders, started: markSimpleOrderStarted, discard: deleteUnstartedSimpleOrder },
];

/**
 * Resolves payments whose opening was cut short: a row whose workflow exists becomes visible, a row
 * with no workflow is removed (the client got no 201, and its Idempotency-Key retry opens it afresh).
 * Both writes are conditional on the row still being invisible, so several API processes may sweep.
 */
export async function sweepUnstartedPayments(
  ctx: PaymentContext,
  olderThanSeconds = UNSTARTED_AFTER_SECONDS,
): Promise<{ started: number; removed: number }> {
  const result = { started: 0, removed: 0 };
  for (const kind of KINDS) {
    for (const id of await kind.list(ctx.db, olderThanSeconds)) {
      try {
        await callTemporal(ctx.temporal, id, () => ctx.temporal.workflow.getHandle(id).describe());
        await kind.started(ctx.db, id);
        result.started++;
      } catch (err) {
        if (!(err instanceof WorkflowClosedError)) throw err;
        await kind.discard(ctx.db, id);
        result.removed++;
      }
    }
  }
  return result;
}

export type SweepTask =
  | 'unstarted payments'
  | 'unstarted refunds'
  | 'expired idempotency keys'
  | 'orphaned deliveries'
  | 'old request log'
  | 'dashboard leftovers';

/**
 * The dashboard's rows past their use: expired sessions, spent or expired email tokens (verification
 * and password reset), expired invitations, audit rows older than DASHBOARD_AUDIT_RETENTION_DAYS.
 */
export const purgeDashboard = (ctx: Pick<PaymentContext, 'db' | 'config'>) =>
  purgeDashboardLeftovers(ctx.db, ctx.config.dashboard.auditRetentionDays);

/**
 * The API's periodic sweep, every `intervalMs` until stopped: payments whose opening was cut short,
 * completed payments' refunds whose run never started (payment-refunds.ts, after the same grace),
 * deliveries no attempt reached (webhook-deliveries.ts), merchants' request log past its retention (request-log.ts), the dashboard's expired sessions,
 * tokens, invitations and old audit rows (purgeDashboard), Idempotency-Keys past their 24 h (decisions §9), which nothing else removes (a claim takes an
 * expired row over only when its own key comes back). The two are independent, so a Temporal outage
 * does not stop the purge; a task that cannot reach Temporal or Postgres waits for the next round.
 */
export function startSweeper(ctx: PaymentContext, intervalMs: number, log: (err: unknown, task: SweepTask) => void): () => void {
  let running = false;
  const report = (task: SweepTask) => (err: unknown) => {
    const down = isUnavailable(err) || (err instanceof AppError && err.code === 'Unavailable');
    if (!down) log(err, task);
  };
  const round = async () => {
    await sweepUnstartedPayments(ctx).catch(report('unstarted payments'));
    await sweepUnstartedRefunds(ctx, UNSTARTED_AFTER_SECONDS).catch(report('unstarted refunds'));
    await purgeExpiredIdempotencyKeys(ctx.db).catch(report('expired idempotency keys'));
    await sweepOrphanedDeliveries(ctx).catch(report('orphaned deliveries'));
    await purgeOldRequestLog(ctx.db).catch(report('old request log'));
    await purgeDashboard(ctx).catch(report('dashboard leftovers'));
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void round().finally(() => {
      running = false;
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
