import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../../domain/errors';
import { isTransactionCode } from '../../../domain/ids';
import { adminOrderView } from '../../simple/views';
import { simpleOrderStatus } from '../../closed-values';

const TX = '0x9f3c2a8e4b1d7c6f5a4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a';
const orderAnswer = z
  .looseObject({
    ok: z.literal(true),
    order: z
      .looseObject({ transactionCode: z.string(), status: simpleOrderStatus })
      .meta({ description: 'Every column of the order, amounts as decimal strings, and its webhook’s one attempt.' }),
    providerEvents: z.array(
      z.looseObject({ eventId: z.string(), type: z.string(), state: z.string(), note: z.string().nullable(), receivedAt: z.string() }),
    ),
  })
  .meta({
    examples: [
      {
        ok: true,
        order: {
          transactionCode: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
          status: 'settled',
          externalReference: 'order-1042',
          fiatAmount: '25.00',
          fiatCurrency: 'EUR',
          amountUsd: '27.050000',
          receivedUsd: '27.050000',
          networkFee: '0.050000',
          walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
          walletCurrency: 'USDC',
          walletNetwork: 'polygon',
          paymentMethod: 'card',
          provider: 'sandbox',
          providerPaymentId: 'sbx_pay_7f3a9c',
          deposit: null,
          verification: 'chain',
          chainDepositAddress: '0x1aD91ee08f21bE3dE0BA2ba6918E714dA6B45836',
          expectedGross: '27.050000',
          depositTransactionHash: TX,
          transactionHash: TX,
          explorerUrl: `https://polygonscan.com/tx/${TX}`,
          payoutDispatched: true,
          failureReason: null,
          webhookUrl: 'https://shop.example/webhooks/orders',
          webhook: { status: 'delivered', attempts: [{ at: '2026-01-15T10:36:41.000Z', statusCode: 200, durationMs: 184, error: null }] },
          successUrl: 'https://shop.example/thanks',
          cancelUrl: 'https://shop.example/cart',
          createdAt: '2026-01-15T10:30:00.000Z',
          updatedAt: '2026-01-15T10:36:41.000Z',
          expiresAt: '2026-01-15T11:30:00.000Z',
          settledAt: '2026-01-15T10:36:40.000Z',
        },
        providerEvents: [
          { eventId: 'sbx_evt_2b8d4e', type: 'payment.succeeded', state: 'signaled', note: null, receivedAt: '2026-01-15T10:34:12.000Z' },
        ],
      },
    ],
  });

/** Operators' view of a simple-API order, with its provider events and its one webhook attempt. */
const adminSimpleOrderRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { code: string } }>(
    '/simple-orders/:code',
    {
      schema: {
        tags: ['admin'],
        summary: 'A simple-API order, with its provider events and its webhook attempt',
        description: 'The operator’s view of an order by its transaction code (a UUID; anything else is 400 InvalidId).',
        params: z.object({
          code: z.string().meta({ description: 'The order’s transaction code (UUID).', example: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' }),
        }),
        response: { 200: orderAnswer },
      },
    },
    async (request) => {
      const code = request.params.code;
      if (!isTransactionCode(code)) throw new AppError('InvalidId', 'A transaction code is a UUID.');
      const { order, providerEvents: events } = await app.payments.admin.simpleOrder(code.toLowerCase());
      return {
        ok: true,
        order: adminOrderView(order),
        providerEvents: events.map((e) => ({
          eventId: e.eventId,
          type: e.type,
          state: e.state,
          note: e.note,
          receivedAt: e.receivedAt.toISOString(),
        })),
      };
    },
  );
};

export default adminSimpleOrderRoutes;
