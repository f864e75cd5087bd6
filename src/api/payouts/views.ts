import { z } from 'zod';
import type { PayoutRow } from '../../payments/rows';
import { formatCrypto } from '../../domain/money';

// A payout as operators see it (the admin payment view, the failed-payouts
// queue): what they need to follow it to the chain, and why it failed. Never the signed bytes.

export const PAYOUT_STATUSES = ['planned', 'signed', 'broadcast', 'confirmed', 'failed'] as const;

export const payoutView = z.object({
  id: z.string(),
  paymentId: z
    .string()
    .describe(
      'The checkout session (SV_…) or simple order (transaction code) whose money it moves; a sweep or merchant payout of a settlement run: its own id',
    ),
  kind: z.enum(['merchant', 'refund', 'customer', 'payment_refund', 'sweep']),
  exceptionId: z.string().nullable().describe('The refunded exception (a refund); null otherwise'),
  status: z.enum(PAYOUT_STATUSES),
  network: z.string(),
  asset: z.string(),
  from: z.string(),
  to: z.string(),
  amount: z.string().describe('Token amount as a decimal (6 places)'),
  nonce: z.number().int().nullable(),
  txHash: z.string().nullable(),
  replacedHashes: z.array(z.string()),
  blockNumber: z.string().nullable(),
  feeWei: z.string().nullable(),
  failureReason: z.string().nullable().describe('Why it failed (status failed): what the chain or the planner refused'),
  createdAt: z.string(),
  broadcastAt: z.string().nullable(),
  confirmedAt: z.string().nullable(),
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function viewPayout(p: PayoutRow): z.infer<typeof payoutView> {
  return {
    id: p.id,
    paymentId: p.paymentId,
    kind: p.kind,
    exceptionId: p.exceptionId,
    status: p.status,
    network: p.network,
    asset: p.asset,
    from: p.fromAddress,
    to: p.toAddress,
    amount: formatCrypto(BigInt(p.amount)),
    nonce: p.nonce,
    txHash: p.txHash,
    replacedHashes: p.replacedHashes,
    blockNumber: p.blockNumber,
    feeWei: p.feeWei,
    failureReason: p.failureReason,
    createdAt: p.createdAt.toISOString(),
    broadcastAt: iso(p.broadcastAt),
    confirmedAt: iso(p.confirmedAt),
  };
}
