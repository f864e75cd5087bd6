import { z } from 'zod';
import { paymentLinkSchema } from '../../routes/payment-link-view';

// A payment link as the dashboard lists it (routes in ../links.ts): the v1 API's view, with its sessions.

export const linkView = paymentLinkSchema.extend({
  /** Sessions customers opened of the link, and how many completed (a link is paid at most once). */
  sessions: z.number().int(),
  completed: z.number().int(),
});
