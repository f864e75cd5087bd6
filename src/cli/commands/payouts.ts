import { z } from 'zod';
import type { payoutView as serverPayoutView } from '../../api/payouts/views';
import { arg, defineCommand, text, type ArgDef, type OpsCommand } from '../command';
import type { Holds, ReadsServer } from '../render';

// Payouts that failed for a reason a retry cannot fix, and the operator's retry once
// the cause is fixed (the payment's own workflow sends it again).

const payoutView = z.object({
  id: z.string(),
  paymentId: z.string(),
  kind: z.string(),
  status: z.string(),
  network: z.string(),
  asset: z.string(),
  amount: z.string(),
  to: z.string(),
  failureReason: z.string().nullable(),
  createdAt: z.string(),
});
type _ServerView = Holds<ReadsServer<typeof payoutView, typeof serverPayoutView>>;

const formatPayout = (p: z.infer<typeof payoutView>) =>
  `${p.id}  ${p.status.padEnd(9)} ${p.kind.padEnd(10)} ${p.amount.padStart(14)} ${p.asset} on ${p.network}  ${p.paymentId}  ${p.createdAt}${p.failureReason ? `\n    ${p.failureReason}` : ''}`;

const payoutId: ArgDef = { name: 'payoutId', description: 'the payout, po_… (see payouts list)' };

export const PAYOUT_COMMANDS: readonly OpsCommand[] = [
  defineCommand({
    name: 'payouts list',
    args: [],
    options: [
      { flags: '--status <status>', description: 'failed (default), planned, signed, broadcast, confirmed or all', defaultValue: 'failed' },
    ],
    summary: 'Payouts across payments, oldest first; failed ones wait for an operator, with the reason.',
    request: (input) => {
      const status = text(input, 'status') ?? 'failed';
      return { method: 'GET', path: status === 'all' ? '/payouts' : `/payouts?status=${encodeURIComponent(status)}` };
    },
    response: z.object({ payouts: z.array(payoutView) }),
    render: (b) => (b.payouts.length ? b.payouts.map(formatPayout) : ['no payouts']),
  }),
  defineCommand({
    name: 'payouts retry',
    args: [payoutId],
    summary:
      'Try a failed payout again once its cause is fixed; the payment’s workflow sends it (a signed transfer is never signed twice).',
    request: (input) => ({ method: 'POST', path: `/payouts/${encodeURIComponent(arg(input, 'payoutId'))}/retry` }),
    response: z.object({ payout: payoutView }),
    render: (b) => [`retrying ${formatPayout(b.payout)}`],
  }),
];
