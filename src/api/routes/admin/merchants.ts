import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { validationError } from '../../../domain/errors';
import { parseCrypto } from '../../../domain/money';
import {
  apiKeyView,
  checkWallets,
  merchantParams,
  merchantView,
  ok,
  viewKey,
  viewMerchant,
  walletInput,
  walletView,
} from './merchant-views';

/** A reserve target: a stablecoin amount from 0 to a billion, or 422 on `amount`. */
function reserveAmount(text: string): bigint {
  try {
    const micro = parseCrypto(text);
    if (micro >= 0n && micro <= 1_000_000_000n * 1_000_000n) return micro;
  } catch {
    // Not an amount: the same answer as one out of range.
  }
  throw validationError(
    [{ path: 'amount', message: 'Must be an amount from 0 to 1000000000 with at most 6 decimals, like 50 or 12.5.' }],
    'The reserve is not an amount.',
  );
}

const adminMerchantRoutes: FastifyPluginAsyncZod = async (app) => {
  const merchants = app.payments.merchants;
  const tags = ['admin'];
  const security = [{ adminToken: [] }];

  app.post(
    '/merchants',
    {
      schema: {
        tags,
        security,
        summary: 'Create a merchant (pending review)',
        description:
          'Answers the merchant with its security code and default webhook secret (which signs deliveries to a session’s webhookUrl), each shown once. No live key until the merchant is approved.',
        body: z.strictObject({
          name: z.string().trim().min(1).max(200),
          commissionBps: z.number().int().min(0).max(10000).optional(),
          wallets: z.array(walletInput).max(20).optional(),
        }),
        response: { 201: z.object({ ok, merchant: merchantView, securityCode: z.string(), webhookSecret: z.string() }) },
      },
    },
    async (request, reply) => {
      const { name, commissionBps = 100 } = request.body;
      const wallets = checkWallets(request.body.wallets ?? []);
      const created = await merchants.create({ name, commissionBps, wallets });
      return reply.status(201).send({
        ok: true as const,
        merchant: viewMerchant(created.merchant),
        securityCode: created.securityCode,
        webhookSecret: created.webhookSecret,
      });
    },
  );

  app.get(
    '/merchants',
    {
      schema: {
        tags,
        security,
        summary: 'List merchants, newest first',
        description: 'Each merchant with its status, settlement wallets and keys (never a secret).',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
        response: { 200: z.object({ ok, merchants: z.array(merchantView) }) },
      },
    },
    async (request) => {
      return { ok: true as const, merchants: (await merchants.list(request.query.limit)).map(viewMerchant) };
    },
  );

  app.post(
    '/merchants/:id/api-keys/:keyId/revoke',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke one key at once (a leaked key); other keys are untouched',
        description: 'The key answers 401 from the next request on (the key cache is emptied before this answer leaves).',
        params: z.object({ id: z.string(), keyId: z.string() }),
        response: { 200: z.object({ ok, key: apiKeyView }) },
      },
    },
    async (request) => {
      const { merchantId, key } = await merchants.revokeKey(request.params.id, request.params.keyId);
      request.log.warn({ merchantId, keyId: key.id }, 'API key revoked');
      return { ok: true as const, key: viewKey(key) };
    },
  );

  app.get(
    '/merchants/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Get a merchant',
        description: 'Its status, settlement wallets and keys (never a secret).',
        params: merchantParams,
        response: { 200: z.object({ ok, merchant: merchantView }) },
      },
    },
    async (request) => ({ ok: true as const, merchant: viewMerchant(await merchants.merchant(request.params.id)) }),
  );

  app.post(
    '/merchants/:id/approve',
    {
      schema: {
        tags,
        security,
        summary: 'Approve a merchant; issues the live key on first approval',
        description: 'The live key is returned once. Re-approving a suspended merchant reinstates its existing keys (apiKey null).',
        params: merchantParams,
        response: { 200: z.object({ ok, merchant: merchantView, apiKey: z.string().nullable() }) },
      },
    },
    async (request) => {
      const approved = await merchants.approve(request.params.id);
      return { ok: true as const, merchant: viewMerchant(approved.merchant), apiKey: approved.apiKey };
    },
  );

  app.post(
    '/merchants/:id/suspend',
    {
      schema: {
        tags,
        security,
        summary: 'Suspend a merchant: its keys answer 403 AccountNotApproved until re-approved',
        description: 'Money arriving for its open sessions becomes a late exception, for an operator to resolve.',
        params: merchantParams,
        response: { 200: z.object({ ok, merchant: merchantView }) },
      },
    },
    async (request) => {
      return { ok: true as const, merchant: viewMerchant(await merchants.suspend(request.params.id)) };
    },
  );

  app.put(
    '/merchants/:id/reserve',
    {
      schema: {
        tags,
        security,
        summary: 'Set what settlement runs keep back in a merchant’s reserve',
        description:
          'Per network and asset, before each payout, runs fill the merchant’s `reserved` balance up to this amount from what is available (refunds draw on it after `available`); lowered, the excess is paid out with the next payout. 0 keeps nothing back.',
        params: merchantParams,
        body: z.strictObject({
          amount: z
            .string()
            .max(40)
            .meta({ description: 'In the stablecoin, 6 decimals at most.', examples: ['50'] }),
        }),
        response: { 200: z.object({ ok, merchant: merchantView }) },
      },
    },
    async (request) => {
      const micro = reserveAmount(request.body.amount);
      return { ok: true as const, merchant: viewMerchant(await merchants.setReserveTarget(request.params.id, micro)) };
    },
  );

  app.post(
    '/merchants/:id/payouts/request',
    {
      schema: {
        tags,
        security,
        summary: 'Ask for a merchant’s payout now',
        description:
          'The next settlement run pays what is available to the merchant’s wallets, whatever its schedule and minimum, as the dashboard’s “pay out now” does.',
        params: merchantParams,
        response: { 200: z.object({ ok, merchant: merchantView }) },
      },
    },
    async (request) => ({ ok: true as const, merchant: viewMerchant(await merchants.requestPayout(request.params.id)) }),
  );

  app.put(
    '/merchants/:id/wallets',
    {
      schema: {
        tags,
        security,
        summary: 'Set the settlement wallet for one (asset, network) pair',
        description: 'The address is checked for the network (EIP-55 checksum on EVM networks). New sessions for the pair settle there.',
        params: merchantParams,
        body: walletInput,
        response: { 200: z.object({ ok, wallet: walletView, merchant: merchantView }) },
      },
    },
    async (request) => {
      const [wallet] = checkWallets([request.body]);
      const { wallet: w, merchant } = await merchants.setWallet(request.params.id, wallet!);
      return {
        ok: true as const,
        wallet: { asset: w.asset, network: w.network, address: w.address, updatedAt: w.updatedAt.toISOString() },
        merchant: viewMerchant(merchant),
      };
    },
  );
};

export default adminMerchantRoutes;
