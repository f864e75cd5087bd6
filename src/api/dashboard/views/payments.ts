import { z } from 'zod';

// A row of the merchant's payment list (routes in ../payments.ts), which the payment page and a
// link's sessions share.

export const PAYMENT_ROW_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'] as const;

/** An open payment partly paid: what arrived, of what is expected, and what remains (6 decimals). */
export const partlyPaidView = z.object({ arrived: z.string(), expected: z.string(), remaining: z.string() }).nullable();

export const paidWithView = z.enum(['wallet', 'provider', 'none']);

export const paymentRowView = z.object({
  id: z.string(),
  status: z.enum(PAYMENT_ROW_STATUSES),
  source: z.string(),
  amount: z.string(),
  currency: z.string(),
  asset: z.string(),
  network: z.string(),
  railType: z.string(),
  /** How the money came (wallet, provider) or none yet; provider is null unless it took part. */
  paidWith: paidWithView,
  provider: z.string().nullable(),
  partlyPaid: partlyPaidView,
  orderId: z.string().nullable(),
  customerEmail: z.string().nullable(),
  paymentLinkId: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  openExceptions: z.number().int(),
});
