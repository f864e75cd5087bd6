import { z } from 'zod';
import { DASHBOARD_ROLES } from '../../../domain/dashboard-roles';
import { ok } from './ok';

// The signed-in person, as GET /dashboard/api/me answers (routes in ../account.ts).

export const meView = z.object({
  ok,
  user: z.object({ id: z.string(), email: z.string(), role: z.enum(DASHBOARD_ROLES) }),
  merchant: z.object({ id: z.string(), name: z.string(), status: z.enum(['pending_review', 'approved', 'suspended']) }),
  liveKeyWaiting: z.boolean(),
  /** Whether a step-up made in this session still counts (actions that move money or reveal secrets ask for one). */
  steppedUp: z.boolean(),
  /** Whether the person has a second factor in force (owners need one before a step-up action). */
  twoFactor: z.boolean(),
});
