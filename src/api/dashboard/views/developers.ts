import { z } from 'zod';
import { ok } from './ok';

// The developers area's plugin sites and request log (routes in ../developers.ts); its keys, endpoints
// and deliveries are the operators' views (../../routes/admin/merchant-views.ts).

/** A connected plugin website: never its webhook secret or verification token. */
export const siteView = z.object({
  id: z.string(),
  siteUrl: z.string(),
  platform: z.string(),
  pluginVersion: z.string(),
  status: z.enum(['pending_verification', 'connected']),
  verifiedAt: z.string().nullable(),
  createdAt: z.string(),
});

/** One request of the merchant's API keys: the key shown only by its prefix and last four characters. */
export const apiRequestView = z.object({
  at: z.string(),
  method: z.string(),
  path: z.string(),
  statusCode: z.number().int(),
  requestId: z.string(),
  key: z.object({ id: z.string(), shown: z.string().nullable() }),
});

export const requestLogView = z.object({ ok, retentionDays: z.number().int(), requests: z.array(apiRequestView) });
