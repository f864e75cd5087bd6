import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { validationError } from '../../domain/errors';
import { formatCrypto, parseCrypto } from '../../domain/money';
import { payoutSettingsInput } from '../../domain/dashboard-inputs';
import { settlementsCsv } from '../../domain/settlements-csv';
import { PAYOUT_LIST_MAX_LIMIT, type MerchantMoney, type PayoutSettings } from '../../payments/merchant-money';
import { checkWallets, walletInput, walletView } from '../routes/admin/merchant-views';
import { rolesFor } from '../../domain/dashboard-roles';
import { actorOf, hide, type SignedIn } from './guard';
import { homeView, merchantPayoutView, payoutSettingsView, settlementView } from './views/money';
import { ok } from './views/ok';

// The merchant's money. Every role reads wallets, payouts, settlements and the home
// figures; only owners and admins change a wallet, and only after a step-up inside the session
// (where money goes is the one setting a stolen session would want).

const instant = z.string().datetime({ offset: true }).or(z.string().date());
const range = z.strictObject({ from: instant.optional(), to: instant.optional() });

const asTotal = (t: { byAsset: Record<string, bigint>; payments: number }) => ({
  byAsset: Object.fromEntries(Object.entries(t.byAsset).map(([asset, micro]) => [asset, formatCrypto(micro)])),
  payments: t.payments,
});

const csv = 'text/csv; charset=utf-8';
/** A payout minimum above a billion is a typing mistake, not a policy. */
const MAX_MINIMUM_MICRO = 1_000_000_000_000_000n;

export interface MoneyRoutesOptions {
  money: MerchantMoney;
  signedIn: SignedIn;
  now: () => Date;
}

const moneyRoutes: FastifyPluginAsyncZod<MoneyRoutesOptions> = async (app, { money, signedIn, now }) => {
  const viewWallet = (w: { asset: string; network: string; address: string; updatedAt: Date }) => ({
    asset: w.asset,
    network: w.network,
    address: w.address,
    updatedAt: w.updatedAt.toISOString(),
  });

  app.get('/wallets', { schema: { hide, response: { 200: z.object({ ok, wallets: z.array(walletView) }) } } }, async (request) => {
    const s = await signedIn(request, rolesFor('payments.read'));
    return { ok: true as const, wallets: (await money.wallets(s.merchantId)).map(viewWallet) };
  });

  app.post(
    '/wallets',
    { schema: { hide, body: walletInput, response: { 200: z.object({ ok, wallet: walletView }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('wallets.manage'), { stepUp: true });
      const [wallet] = checkWallets([request.body]);
      return { ok: true as const, wallet: viewWallet(await money.setWallet(actorOf(request, s), wallet!)) };
    },
  );

  // Batched settlement (docs/settlement.md): the balance, and when and how much payouts pay. Every
  // role reads them; owners and admins change them after a step-up, and may ask for a payout now.
  const viewPayoutSettings = (p: PayoutSettings) => ({
    ok: true as const,
    schedule: p.schedule,
    minimum: formatCrypto(p.minimumMicro),
    requestedAt: p.requestedAt?.toISOString() ?? null,
    balances: p.balances.map((b) => ({
      network: b.network,
      asset: b.asset,
      pending: formatCrypto(b.pending),
      available: formatCrypto(b.available),
      reserved: formatCrypto(b.reserved),
      outgoing: formatCrypto(b.outgoing),
      nextPayoutAt: b.nextPayout.at?.toISOString() ?? null,
      payoutDue: b.nextPayout.due,
      payoutRequested: b.nextPayout.requested,
    })),
    nextPayoutAt: p.nextPayout.at?.toISOString() ?? null,
    payoutDue: p.nextPayout.due,
    payoutRequested: p.nextPayout.requested,
    payoutIntervalSeconds: p.payoutIntervalSeconds,
    topUpAddresses: p.topUpAddresses,
  });

  app.get('/payout-settings', { schema: { hide, response: { 200: payoutSettingsView } } }, async (request) => {
    const s = await signedIn(request, rolesFor('payments.read'));
    return viewPayoutSettings(await money.payoutSettings(s.merchantId));
  });

  app.post(
    '/payout-settings',
    {
      schema: {
        hide,
        body: payoutSettingsInput,
        response: { 200: payoutSettingsView },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('wallets.manage'), { stepUp: true });
      let minimumMicro: bigint;
      try {
        minimumMicro = parseCrypto(request.body.minimum);
        if (minimumMicro < 0n || minimumMicro > MAX_MINIMUM_MICRO) throw new RangeError('out of range');
      } catch {
        throw validationError(
          [{ path: 'minimum', message: 'The minimum must be an amount from 0 to 1000000000 with at most 6 decimals, like 50 or 12.5.' }],
          'The minimum is not an amount.',
        );
      }
      return viewPayoutSettings(await money.setPayoutSettings(actorOf(request, s), { schedule: request.body.schedule, minimumMicro }));
    },
  );

  app.post('/payout-settings/request', { schema: { hide, response: { 200: payoutSettingsView } } }, async (request) => {
    const s = await signedIn(request, rolesFor('wallets.manage'));
    return viewPayoutSettings(await money.requestPayout(actorOf(request, s)));
  });

  const payoutPage = z.strictObject({
    cursor: z.string().max(300).optional(),
    limit: z.coerce.number().int().min(1).max(PAYOUT_LIST_MAX_LIMIT).optional(),
  });

  app.get(
    '/payouts',
    {
      schema: {
        hide,
        querystring: payoutPage,
        response: { 200: z.object({ ok, payouts: z.array(merchantPayoutView), nextCursor: z.string().nullable() }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('payments.read'));
      const page = await money.payouts(s.merchantId, request.query);
      return {
        ok: true as const,
        payouts: page.items.map((p) => ({
          id: p.id,
          paymentId: p.paymentId,
          status: p.status,
          asset: p.asset,
          network: p.network,
          amount: formatCrypto(p.amountMicro),
          toAddress: p.toAddress,
          txHash: p.txHash,
          failureReason: p.failureReason,
          createdAt: p.createdAt.toISOString(),
          confirmedAt: p.confirmedAt?.toISOString() ?? null,
          payments: p.payments.map((i) => ({ paymentId: i.paymentId, amount: formatCrypto(i.amountMicro) })),
        })),
        nextCursor: page.nextCursor,
      };
    },
  );

  // Every payout, however many: the file streams out a page of rows at a time.
  app.get('/payouts.csv', { schema: { hide } }, async (request, reply) => {
    const s = await signedIn(request, rolesFor('payments.read'));
    return reply
      .header('content-type', csv)
      .header('content-disposition', `attachment; filename="payouts-${s.merchantId}.csv"`)
      .send(Readable.from(money.payoutsCsv(s.merchantId)));
  });

  const settlementRange = (q: z.infer<typeof range>) => {
    const from = q.from ? new Date(q.from) : new Date(0);
    const to = q.to ? new Date(q.to) : now();
    if (from >= to) throw validationError([{ path: 'querystring.from', message: 'Must be before `to`.' }], 'The date range is empty.');
    return { from, to };
  };

  app.get(
    '/settlements',
    { schema: { hide, querystring: range, response: { 200: z.object({ ok, settlements: z.array(settlementView) }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('payments.read'));
      const { from, to } = settlementRange(request.query);
      const lines = await money.settlements(s.merchantId, from, to);
      return {
        ok: true as const,
        settlements: lines.map((l) => ({
          paymentId: l.paymentId,
          asset: l.asset,
          network: l.network,
          gross: formatCrypto(l.grossMicro),
          commission: formatCrypto(l.commissionMicro),
          net: formatCrypto(l.netMicro),
          depositTransactionHash: l.depositTransactionHash,
          payoutTransactionHash: l.payoutTransactionHash,
          completedAt: l.completedAt?.toISOString() ?? null,
          settledAt: l.settledAt.toISOString(),
          orderId: l.orderId,
        })),
      };
    },
  );

  // The operator's settlements CSV (GET /admin/v1/merchants/{id}/settlements.csv), the same rows and writer.
  app.get('/settlements.csv', { schema: { hide, querystring: range } }, async (request, reply) => {
    const s = await signedIn(request, rolesFor('payments.read'));
    const { from, to } = settlementRange(request.query);
    const body = settlementsCsv(await money.settlements(s.merchantId, from, to));
    return reply
      .header('content-type', csv)
      .header('content-disposition', `attachment; filename="settlements-${s.merchantId}.csv"`)
      .send(body);
  });

  app.get(
    '/home',
    {
      schema: {
        hide,
        response: {
          200: homeView,
        },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('payments.read'));
      const home = await money.home(s.merchantId);
      return {
        ok: true as const,
        today: asTotal(home.today),
        month: asTotal(home.month),
        days: home.days.map((d) => ({ day: d.day, ...asTotal(d) })),
        byStatus: home.byStatus,
        openExceptions: home.openExceptions,
      };
    },
  );
};

export default moneyRoutes;
