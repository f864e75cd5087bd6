import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { explorerUrlFor } from '../../domain/explorers';
import { formatCrypto } from '../../domain/money';
import { SETTLEMENT_LIST_DEFAULT_LIMIT, SETTLEMENT_LIST_MAX_LIMIT } from '../../payments/merchant-settlements';
import type { SettlementRow } from '../../payments/rows';
import { assetName, networkName } from '../closed-values';

const PAYOUT_ID = 'po_3Gh8Jk2Lz5Xc7Vb1Nm4Qw9Er';
const CURSOR = 'WyIyMDI2LTAxLTE1VDEwOjM1OjAyLjAwMDAwMFoiLCJwb18zR2g4SmsyTHo1WGM3VmIxTm00UXc5RXIiXQ';

const settlementSchema = z.object({
  id: z.string().meta({ description: 'The payout (po_…).', examples: [PAYOUT_ID] }),
  status: z.enum(['planned', 'signed', 'broadcast', 'confirmed', 'failed']).meta({
    description:
      'planned → signed → broadcast → confirmed (on chain: the money is in your wallet); failed when the transfer could not be made, its amount back in your available balance.',
    examples: ['confirmed'],
  }),
  network: networkName,
  asset: assetName,
  amount: z.string().meta({
    description:
      'What the transfer pays you: the sum of its payments’ amounts, or less when refunds drew on your balance meanwhile: then your whole available balance when the payout was planned.',
    examples: ['24.132500'],
  }),
  walletAddress: z
    .string()
    .meta({ description: 'Your settlement wallet it pays to.', examples: ['0x52908400098527886E0F7030069857D2E4169EE7'] }),
  transactionHash: z
    .string()
    .nullable()
    .meta({
      description: 'The transfer’s hash once it is signed (null before); final when the status is confirmed.',
      examples: ['0x1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c'],
    }),
  explorerUrl: z
    .string()
    .nullable()
    .meta({
      description: 'The transfer on the network’s explorer, with its hash.',
      examples: ['https://polygonscan.com/tx/0x1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c'],
    }),
  createdAt: z.string().meta({ description: 'When the payout was planned.', examples: ['2026-01-15T10:35:02.000Z'] }),
  confirmedAt: z
    .string()
    .nullable()
    .meta({ description: 'When its receipt confirmed it.', examples: ['2026-01-15T10:36:40.000Z'] }),
  payments: z
    .array(
      z.object({
        paymentId: z.string().meta({ description: 'A payment it pays (SV_…).', examples: ['SV_4f9a1c2b7d8e6f5a4b3c2d1e'] }),
        amount: z.string().meta({ description: 'Your share of that payment it pays.', examples: ['24.132500'] }),
      }),
    )
    .meta({ description: 'The payments it pays, by id.' }),
});

function settlementView(s: SettlementRow): z.infer<typeof settlementSchema> {
  return {
    id: s.id,
    status: s.status,
    network: s.network,
    asset: s.asset,
    amount: formatCrypto(s.amountMicro),
    walletAddress: s.toAddress,
    transactionHash: s.txHash,
    explorerUrl: s.txHash ? explorerUrlFor(s.network, s.txHash) : null,
    createdAt: s.createdAt.toISOString(),
    confirmedAt: s.confirmedAt?.toISOString() ?? null,
    payments: s.payments.map((p) => ({ paymentId: p.paymentId, amount: formatCrypto(p.amountMicro) })),
  };
}

// Strict, as the session list's query is: a misspelt parameter is refused rather than ignored.
const listSettlementsQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(SETTLEMENT_LIST_MAX_LIMIT)
    .default(SETTLEMENT_LIST_DEFAULT_LIMIT)
    .meta({ description: `Settlements per page, 1 to ${SETTLEMENT_LIST_MAX_LIMIT}.`, examples: [20] }),
  cursor: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .meta({
      description: 'The `nextCursor` of the page before; without it, the newest settlements. Only cursors handed to you are accepted.',
      examples: [CURSOR],
    }),
});

// The payouts to the merchant's wallets (docs/settlement.md), each with the payments it pays.
const settlementRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/settlements',
    {
      preHandler: app.requireScope('transactions:read'),
      schema: {
        operationId: 'listSettlements',
        tags: ['settlement'],
        summary: 'List the payouts to your wallets, newest first',
        description:
          'Each payout of your balance to your settlement wallet (one transfer per run, network and asset), with the payments it pays, newest first, in pages: ' +
          'pass a page’s `nextCursor` as `cursor` for the next one (null on the last page). Paging through returns every settlement once, whatever is paid meanwhile. ' +
          'A refused parameter or cursor is 422 `ValidationError`, with `details` naming it.',
        security: [{ apiKey: [] }],
        querystring: listSettlementsQuery,
        response: {
          200: z.object({
            ok: z.literal(true),
            settlements: z.array(settlementSchema),
            hasMore: z.boolean().meta({ description: 'Whether another page follows (nextCursor is not null).', examples: [true] }),
            nextCursor: z
              .string()
              .nullable()
              .meta({ description: 'Pass as `cursor` for the next page; null on the last page.', examples: [CURSOR] }),
          }),
        },
      },
    },
    async (request) => {
      const page = await app.payments.listSettlements(request.merchant!.id, { cursor: request.query.cursor, limit: request.query.limit });
      return {
        ok: true as const,
        settlements: page.items.map(settlementView),
        hasMore: page.nextCursor !== null,
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/settlements/:id',
    {
      preHandler: app.requireScope('transactions:read'),
      schema: {
        operationId: 'getSettlement',
        tags: ['settlement'],
        summary: 'One payout to your wallet, by its id or by a payment it pays',
        description:
          'By a payout id (po_…), that payout; by a payment id (SV_…), the payout that pays the payment (planned, on its way or confirmed). ' +
          'A payment not paid out yet, another merchant’s id and any id of neither shape are all 404 `NotFound`.',
        security: [{ apiKey: [] }],
        params: z.object({
          id: z.string().meta({ description: 'A payout id (po_…) or a payment id (SV_…).', example: PAYOUT_ID }),
        }),
        response: { 200: z.object({ ok: z.literal(true), settlement: settlementSchema }) },
      },
    },
    async (request) => {
      const settlement = await app.payments.findSettlement(request.merchant!.id, request.params.id);
      return { ok: true as const, settlement: settlementView(settlement) };
    },
  );
};

export default settlementRoutes;
