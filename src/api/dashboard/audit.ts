import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rolesFor } from '../../domain/dashboard-roles';
import type { AuditRow, DashboardAudit } from '../../accounts/dashboard-audit';
import { hide, type SignedIn } from './guard';
import { auditEntryView, auditPageView } from './views/audit';

// The audit log: who did what in the dashboard, when, from where. Owners only (it names every
// person and action); a page of it as JSON, all of it (up to AUDIT_CSV_MAX_ROWS) as CSV.

const viewEntry = (r: AuditRow): z.infer<typeof auditEntryView> => ({
  id: r.id,
  at: r.createdAt.toISOString(),
  actor: { id: r.actorUserId, email: r.actorEmail },
  action: r.action,
  target: r.target,
  details: r.details ?? null,
  ip: r.ip,
});

const PAGE = 100;

export interface AuditRoutesOptions {
  audit: DashboardAudit;
  signedIn: SignedIn;
}

const auditRoutes: FastifyPluginAsyncZod<AuditRoutesOptions> = async (app, { audit, signedIn }) => {
  app.get(
    '/audit-log',
    {
      schema: {
        hide,
        querystring: z.strictObject({ before: z.coerce.number().int().positive().optional() }),
        response: { 200: auditPageView },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('audit.read'));
      const rows = await audit.list(s.merchantId, { limit: PAGE, ...(request.query.before ? { beforeId: request.query.before } : {}) });
      return { ok: true as const, entries: rows.map(viewEntry), nextBefore: rows.length === PAGE ? rows[rows.length - 1]!.id : null };
    },
  );

  app.get('/audit-log.csv', { schema: { hide } }, async (request, reply) => {
    const s = await signedIn(request, rolesFor('audit.read'));
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="audit-log-${s.merchantId}.csv"`)
      .header('cache-control', 'no-store')
      .send(await audit.csv(s.merchantId));
  });
};

export default auditRoutes;
