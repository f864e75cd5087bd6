import { z } from 'zod';
import type { adminExceptionListItemSchema, adminExceptionSchema } from '../../api/exceptions/views';
import { arg, defineCommand, text, type ArgDef, type OpsCommand } from '../command';
import type { Holds, ReadsServer } from '../render';

// The exception queue, money off the happy path that an operator resolves.

const exceptionView = z.object({
  id: z.string(),
  kind: z.string(),
  status: z.string(),
  amount: z.string(),
  paymentKind: z.string(),
  paymentId: z.string(),
  createdAt: z.string(),
  resolvedAt: z.string().nullable(),
  references: z.record(z.string(), z.unknown()),
  // The queue's own (exceptions list): whom the money concerns.
  merchantId: z.string().nullable().optional(),
  senders: z.array(z.string()).optional(),
  asset: z.string().nullable().optional(),
  network: z.string().nullable().optional(),
  tokenContract: z.string().nullable().optional(),
});
type _ServerViews = [
  Holds<ReadsServer<typeof exceptionView, typeof adminExceptionSchema>>,
  Holds<ReadsServer<typeof exceptionView, typeof adminExceptionListItemSchema>>,
];

const formatException = (e: z.infer<typeof exceptionView>) =>
  `${e.id}  ${e.status.padEnd(8)} ${e.kind.padEnd(10)} ${e.amount.padStart(14)}  ${e.paymentId}  ${e.createdAt}`;

/** A queue line: the exception, then the merchant, the token that arrived and who sent it. */
const formatQueued = (e: z.infer<typeof exceptionView>) => {
  const token = [e.asset ?? 'unknown token', e.network, e.tokenContract ? `(${e.tokenContract})` : null].filter(Boolean).join(' ');
  const from = e.senders?.length ? e.senders.join(', ') : 'no transfer seen';
  return `${formatException(e)}\n    merchant ${e.merchantId ?? '- (simple order)'}  token ${token}  from ${from}`;
};

const exceptionId: ArgDef = { name: 'exceptionId', description: 'the exception, exc_… (see exceptions list)' };
const exceptionPath = (id: string, action: string) => `/exceptions/${encodeURIComponent(id)}/${action}`;

export const EXCEPTION_COMMANDS: readonly OpsCommand[] = [
  defineCommand({
    name: 'exceptions list',
    args: [],
    options: [{ flags: '--status <status>', description: 'open (default), accepted, refunded or all', defaultValue: 'open' }],
    summary: 'Money off the happy path, oldest first: late, duplicate, overpaid, underpaid, unverified.',
    request: (input) => {
      const status = text(input, 'status') ?? 'open';
      return { method: 'GET', path: status === 'all' ? '/exceptions' : `/exceptions?status=${encodeURIComponent(status)}` };
    },
    response: z.object({ exceptions: z.array(exceptionView) }),
    render: (b) => (b.exceptions.length ? b.exceptions.map(formatQueued) : ['no exceptions']),
  }),
  defineCommand({
    name: 'exceptions accept',
    args: [exceptionId],
    summary: 'Accept a late or underpaid payment as the payment: it completes and payment.completed fires (idempotent).',
    request: (input) => ({ method: 'POST', path: exceptionPath(arg(input, 'exceptionId'), 'accept') }),
    response: z.object({ exception: exceptionView, paymentStatus: z.string() }),
    render: (b) => [`accepted ${formatException(b.exception)}`, `payment ${b.exception.paymentId} is ${b.paymentStatus}`],
  }),
  defineCommand({
    name: 'exceptions refund',
    args: [exceptionId],
    options: [
      {
        flags: '--address <address>',
        description: 'where the credited amount goes back on chain; without it, the refund address the customer gave on the checkout page',
      },
    ],
    summary:
      'Send late, duplicate or underpaid money back on chain to --address or the customer’s refund address (idempotent); refunded once the transfer is confirmed.',
    request: (input) => {
      const address = text(input, 'address');
      // Without --address the API takes the customer's stored address, and refuses (422) when there is none.
      return { method: 'POST', path: exceptionPath(arg(input, 'exceptionId'), 'refund'), body: address === undefined ? {} : { address } };
    },
    response: z.object({
      exception: exceptionView,
      refund: z.object({
        address: z.string(),
        amount: z.string(),
        status: z.string(),
        failureReason: z.string().nullable().optional(),
        transactionHash: z.string().nullable(),
      }),
    }),
    render: (b) => [
      `refund ${b.refund.status}: ${b.refund.amount} to ${b.refund.address}${b.refund.transactionHash ? ` in ${b.refund.transactionHash}` : ''}${b.refund.failureReason ? ` (${b.refund.failureReason})` : ''}`,
      formatException(b.exception),
    ],
  }),
];
