import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatCrypto } from '../../domain/money';
import { assetName, networkName } from '../closed-values';

const amount = (description: string, example: string) => z.string().meta({ description, examples: [example] });

const balanceSchema = z.object({
  network: networkName,
  asset: assetName,
  pending: amount('Your share of completed payments still on hold, not yet available.', '0.000000'),
  available: amount('What the next payout pays (and what refunds draw on first).', '24.132500'),
  reserved: amount('Kept back for refunds; payouts leave it.', '0.000000'),
});

// What the merchant is owed, per network and asset, from the ledger's merchant accounts (docs/settlement.md).
const balanceRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/balance',
    {
      preHandler: app.requireScope('transactions:read'),
      schema: {
        operationId: 'getBalance',
        tags: ['settlement'],
        summary: 'Your balance, per network and asset',
        description:
          'What the platform owes you, one entry per network and asset you have been paid in (none before your first completed payment), ' +
          'in decimal strings with 6 decimals. A completed payment’s share is `pending` until its hold ends, then `available` (or `reserved`, ' +
          'kept back for refunds); a settlement run pays `available` to your wallet (GET /api/v1/settlements). A payout on its way is in none of the three. ' +
          '`topUpAddresses` are where you top up `available` for refunds.',
        security: [{ apiKey: [] }],
        response: {
          200: z.object({
            ok: z.literal(true),
            balances: z.array(balanceSchema),
            topUpAddresses: z
              .array(
                z.object({
                  network: networkName,
                  address: z
                    .string()
                    .meta({
                      description: 'Your own deposit address on this network.',
                      examples: ['0x5FbDB2315678afecb367f032d93F642f64180aa3'],
                    }),
                }),
              )
              .meta({
                description:
                  'Where you top up your balance: USDC or USDT sent to your address on a network is credited to your `available` balance there once confirmed, ' +
                  'for refunds of completed payments. One address per network, made on first read and never changed.',
              }),
          }),
        },
      },
    },
    async (request) => {
      const merchantId = request.merchant!.id;
      const [balances, topUpAddresses] = await Promise.all([
        app.payments.merchantBalances(merchantId),
        app.payments.merchantTopUpAddresses(merchantId),
      ]);
      return {
        ok: true as const,
        balances: balances.map((b) => ({
          network: b.network,
          asset: b.asset,
          pending: formatCrypto(b.pending),
          available: formatCrypto(b.available),
          reserved: formatCrypto(b.reserved),
        })),
        topUpAddresses,
      };
    },
  );
};

export default balanceRoutes;
