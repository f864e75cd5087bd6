import { z } from 'zod';
import { EXCEPTION_KINDS, EXCEPTION_STATUSES } from '../../domain/exceptions';

// An exception as merchants (the session lookup) and operators (the admin queue) see it.

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

/** The operators' queue: each exception with whom it concerns, so an operator can act on the list alone. */
export const adminExceptionListItemSchema = adminExceptionSchema.extend({
  merchantId: z.string().nullable().describe('The checkout session’s merchant; null for a simple order'),
  senders: z.array(z.string()).describe('Where the money came from: the transfer’s sender, or the senders of the credits it counts'),
  asset: z.string().nullable().describe('The token that arrived (null: a contract this deployment does not configure)'),
  network: z.string().nullable(),
  tokenContract: z.string().nullable().describe('The token’s contract; null when no transfer was seen (unverified)'),
});
