import { z } from 'zod';
import { EXCEPTION_KINDS, EXCEPTION_STATUSES } from '../../domain/exceptions';

// Decisions §12: an exception as merchants (the session lookup) and operators (the admin queue) see it.

export const exceptionSchema = z.object({
  id: z.string(),
  kind: z.enum(EXCEPTION_KINDS),
  status: z.enum(EXCEPTION_STATUSES),
  /** Stablecoin amount, 6 decimals. */
  amount: z.string(),
  references: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  resolvedAt: z.string().nullable(),
});

export const adminExceptionSchema = exceptionSchema.extend({
  paymentKind: z.enum(['checkout_session', 'simple_order']),
  paymentId: z.string(),
  arrivalKey: z.string(),
});
