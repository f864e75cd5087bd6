import type { Database, DatabaseOrTransaction } from '../db/client';
import { insertAuditRow, listAuditRows, type AuditRow } from '../db/queries/dashboard-audit';
import { csvLine } from '../domain/csv';
import type { DashboardRole } from '../domain/dashboard-roles';

// The audit log of what people do in the dashboard: who, what, when, from which address.
// Use cases write it in the transaction of the change they make (`recordAudit(tx, …)`), so a change
// is never without its line nor a line without its change. Details name things, never secrets.

/** The signed-in person acting in the dashboard, and where from. */
export interface DashboardActor {
  userId: string;
  email: string;
  role: DashboardRole;
  merchantId: string;
  ip: string;
}

export type AuditAction =
  | 'session.signed_in'
  | 'sign_in.paused'
  | 'session.signed_out'
  | 'session.stepped_up'
  | 'sessions.ended_everywhere'
  | 'password.changed'
  | 'password.reset'
  | 'two_factor.enabled'
  | 'two_factor.disabled'
  | 'two_factor.recovery_code_used'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'live_key.revealed'
  | 'live_key.rotated'
  | 'security_code.rotated'
  | 'webhook_endpoint.created'
  | 'webhook_endpoint.secret_rolled'
  | 'webhook_endpoint.enabled'
  | 'webhook_endpoint.disabled'
  | 'webhook_endpoint.deleted'
  | 'webhook_endpoint.test_sent'
  | 'webhook_delivery.resent'
  | 'site.disconnected'
  | 'member.role_changed'
  | 'member.removed'
  | 'invitation.sent'
  | 'invitation.withdrawn'
  | 'invitation.accepted'
  | 'refund.requested'
  | 'exception_refund.requested'
  | 'payment_link.created'
  | 'payment_link.deactivated'
  | 'wallet.changed'
  | 'payout_settings.changed'
  | 'payout.requested';

export async function recordAudit(
  tx: DatabaseOrTransaction,
  actor: DashboardActor,
  action: AuditAction,
  target: string | null = null,
  details: Record<string, unknown> | null = null,
): Promise<void> {
  await insertAuditRow(tx, {
    merchantId: actor.merchantId,
    actorUserId: actor.userId,
    actorEmail: actor.email,
    action,
    target,
    details,
    ip: actor.ip,
  });
}

/** How many lines the CSV export carries at most (the newest). */
export const AUDIT_CSV_MAX_ROWS = 50_000;

export type { AuditRow };

export function createDashboardAudit({ db }: { db: Database }) {
  return {
    /** For an action whose change another use case made in its own transaction (a test event, a resend). */
    record: (actor: DashboardActor, action: AuditAction, target: string | null = null, details: Record<string, unknown> | null = null) =>
      recordAudit(db, actor, action, target, details),

    list: (merchantId: string, options: { limit: number; beforeId?: number }) => listAuditRows(db, merchantId, options),

    async csv(merchantId: string): Promise<string> {
      const rows = await listAuditRows(db, merchantId, { limit: AUDIT_CSV_MAX_ROWS });
      return (
        csvLine(['time', 'actor_email', 'actor_id', 'action', 'target', 'details', 'ip']) +
        rows
          .map((r) =>
            csvLine([
              r.createdAt.toISOString(),
              r.actorEmail,
              r.actorUserId,
              r.action,
              r.target ?? '',
              r.details ? JSON.stringify(r.details) : '',
              r.ip,
            ]),
          )
          .join('')
      );
    },
  };
}

export type DashboardAudit = ReturnType<typeof createDashboardAudit>;
