import { purgeDashboardLeftovers } from '../db/queries/dashboard';
import { purgeExpiredIdempotencyKeys } from '../db/queries/idempotency-keys';
import { AppError, isUnavailable } from '../domain/errors';
import type { PaymentContext } from './context';
import { purgeOldRequestLog } from '../accounts/request-log';
import { sweepOrphanedDeliveries } from './webhook-deliveries';

/** How often the API's sweep runs: orphaned deliveries wait at most this long to be taken up. */
export const SWEEP_INTERVAL_MS = 15_000;

export type SweepTask = 'expired idempotency keys' | 'orphaned deliveries' | 'old request log' | 'dashboard leftovers';

/**
 * The dashboard's rows past their use: expired sessions, spent or expired email tokens (verification
 * and password reset), expired invitations, audit rows older than DASHBOARD_AUDIT_RETENTION_DAYS.
 */
export const purgeDashboard = (ctx: Pick<PaymentContext, 'db' | 'config'>) =>
  purgeDashboardLeftovers(ctx.db, ctx.config.dashboard.auditRetentionDays);

/**
 * The API's periodic sweep, every `intervalMs` until stopped: deliveries nothing will attempt (never attempted, or an attempt cut short that no run took up again: webhook-deliveries.ts), merchants' request log past its retention (request-log.ts), the dashboard's expired sessions,
 * tokens, invitations and old audit rows (purgeDashboard), Idempotency-Keys past their 24 h, which nothing else removes (a claim takes an
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
