import { z } from 'zod';
import { DASHBOARD_ROLES } from '../../../domain/dashboard-roles';

// The team page's members and invitations (routes in ../team.ts).

export const memberView = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(DASHBOARD_ROLES),
  emailVerified: z.boolean(),
  createdAt: z.string(),
});

export const invitationView = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(DASHBOARD_ROLES),
  invitedBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
