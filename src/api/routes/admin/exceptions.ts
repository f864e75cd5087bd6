import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EXCEPTION_STATUSES, exceptionView } from '../../../domain/exceptions';
import type { PaymentExceptionRow } from '../../../payments/rows';
import { adminExceptionListItemSchema, adminExceptionSchema } from '../../exceptions/views';

const refundSchema = z.object({
  address: z.string(),
  amount: z.string().describe('Stablecoin amount, 6 decimals'),
  status: z.enum(['planned', 'signed', 'broadcast', 'confirmed', 'failed']).describe('The transfer back, as the payout machinery sends it'),
  failureReason: z
    .string()
    .nullable()
    .describe('Why the transfer back failed (status failed): the exception stays open and may be refunded again'),
  transactionHash: z.string().nullable().describe('Null until the transfer is confirmed'),
  explorerUrl: z.string().nullable(),
});

const view = (row: PaymentExceptionRow): z.infer<typeof adminExceptionSchema> => ({
  ...exceptionView(row),
  paymentKind: row.paymentKind,
  paymentId: row.paymentId,
  arrivalKey: row.arrivalKey,
});

/** Operators: the exception queue and its resolutions, each run in the exception's workflow. */
const adminExceptionRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['admin'];
  const security = [{ adminToken: [] }];
  const params = z.object({ id: z.string() });

  app.get(
    '/exceptions',
    {
      schema: {
        tags,
        security,
        summary: 'Money off the happy path, oldest first: one row per arrival (late, duplicate, overpaid, underpaid, unverified)',
        description:
          'Filter with status (open is the operators’ queue). Each row names the payment, its merchant, the arrival (transaction or provider event), the sender and the token, and, once resolved, how.',
        querystring: z.object({
          status: z.enum(EXCEPTION_STATUSES).optional(),
          limit: z.coerce.number().int().min(1).max(500).default(100),
        }),
        response: { 200: z.object({ ok: z.literal(true), exceptions: z.array(adminExceptionListItemSchema) }) },
      },
    },
    async (request) => {
      const rows = await app.payments.listExceptions(request.query.status, request.query.limit);
      return { ok: true as const, exceptions: rows.map((row) => ({ ...view(row), ...row.parties })) };
    },
  );

  app.post(
    '/exceptions/:id/accept',
    {
      schema: {
        tags,
        security,
        summary:
          'Accept a late or underpaid payment: the session completes with the money that arrived, payment.completed fires (idempotent)',
        description:
          'An update of the payment’s workflow. On a chain-verified session the accepted money must be held on the ledger for this exception (409 otherwise: never paid without proof). Asking again answers the same.',
        params,
        response: { 200: z.object({ ok: z.literal(true), exception: adminExceptionSchema, paymentStatus: z.string() }) },
      },
    },
    async (request) => {
      const { exception, result } = await app.payments.acceptException(request.params.id);
      return { ok: true as const, exception: view(exception), paymentStatus: result.paymentStatus };
    },
  );

  app.post(
    '/exceptions/:id/refund',
    {
      schema: {
        tags,
        security,
        summary:
          'Send late, duplicate or underpaid money back on chain from the deposit address to `address` (idempotent; another address is 409 while it is under way). Answers once the transfer is planned; the exception becomes refunded and payment.refunded fires when it is confirmed. A refused address (zero, malformed or mistyped, the treasury, a token contract, a deposit address of ours) is 422 and changes nothing; a refund whose transfer failed leaves the exception open for another one',
        description:
          'A refused address is 422 and changes nothing; a refund whose transfer failed leaves the exception open for another one. payment.refunded fires when the transfer is confirmed.',
        params,
        body: z.object({
          address: z
            .string()
            .min(1)
            .max(128)
            .optional()
            .describe(
              'The customer’s EVM address (EIP-55 checksum when mixed case; all lowercase carries none and is accepted). Absent: the refund address the customer gave on the checkout page; 422 when there is none',
            ),
        }),
        response: { 200: z.object({ ok: z.literal(true), exception: adminExceptionSchema, refund: refundSchema }) },
      },
    },
    async (request) => {
      const { exception, refund } = await app.payments.refundException(request.params.id, request.body.address);
      return { ok: true as const, exception: view(exception), refund };
    },
  );
};

export default adminExceptionRoutes;
