import { z } from 'zod';
import { ok } from './ok';

// The audit log as GET /dashboard/api/audit-log answers (routes in ../audit.ts).

export const auditEntryView = z.object({
  id: z.number().int(),
  at: z.string(),
  actor: z.object({ id: z.string(), email: z.string() }),
  action: z.string(),
  target: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  ip: z.string(),
});

export const auditPageView = z.object({ ok, entries: z.array(auditEntryView), nextBefore: z.number().int().nullable() });
