import { describe, expect, it } from 'vitest';
import { commissionSplit, formatCrypto } from '../../src/domain/money';
import { explorerUrlFor } from '../../src/domain/explorers';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';
import { balanceOf, payFromWallet, randomAddress, sharedChain } from '../support/chain';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { seedPayment } from '../support/seed-payment';
import { openSession, pressPay, sessionRow, waitForStatus } from '../proof/support';

// The merchant API's reads of batched settlement (docs/settlement.md): GET /api/v1/balance,
// GET /api/v1/settlements and GET /api/v1/settlements/{id}, over payments paid on the run's shared
// chain and settled by the file's settlement runs. Each merchant reads their own only.
const ctx = useTestApp({ PAYOUT_INTERVAL_SECONDS: '1' }, { listen: true, sandbox: true, worker: true });

type Settlement = {
  id: string;
  status: string;
  network: string;
  asset: string;
  amount: string;
  walletAddress: string;
  transactionHash: string | null;
  explorerUrl: string | null;
  createdAt: string;
  confirmedAt: string | null;
  payments: { paymentId: string; amount: string }[];
};

const get = (apiKey: string, path: string) =>
  http('GET', `${ctx.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
const micro = (amount: string) => BigInt(amount.replace('.', ''));

async function merchantWithWallet() {
  const wallet = randomAddress();
  const merchant = await createApprovedMerchant(ctx.app, {
    name: 'Settled Shop',
    commissionBps: 100,
    wallets: [{ asset: 'USDC', network: 'polygon', address: wallet }],
  });
  return { ...merchant, wallet };
}

/** Every settlement of the merchant, a page of `limit` at a time, and how many pages that took. */
async function allPages(apiKey: string, limit: number): Promise<{ settlements: Settlement[]; pages: number }> {
  const settlements: Settlement[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(apiKey, `/settlements?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    pages += 1;
    expect(res.json.settlements.length).toBeLessThanOrEqual(limit);
    expect(res.json.hasMore).toBe(res.json.nextCursor !== null);
    settlements.push(...(res.json.settlements as Settlement[]));
    cursor = res.json.nextCursor as string | null;
  } while (cursor);
  return { settlements, pages };
}

describe('the merchant API’s balance and settlements', () => {
  it('shows the balance, then the payout that paid it, to its merchant only', async () => {
    const chain = sharedChain();
    const usdc = chain.tokens.polygon.USDC;
    const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
    // Held while the payments complete, so that their shares stay in the balance, to be read there.
    await schedule.pause();
    const shop = await merchantWithWallet();
    const other = await merchantWithWallet();

    // Nothing yet: no balance, no settlement; a top-up address on every network, the merchant's own.
    const fresh = (await get(shop.apiKey, '/balance')).json;
    expect(fresh).toMatchObject({ ok: true, balances: [] });
    const topUps = fresh.topUpAddresses as { network: string; address: string }[];
    expect(topUps.map((t) => t.network).sort()).toEqual(ctx.config.chains.networks.map((n) => n.network).sort());
    expect((await get(shop.apiKey, '/settlements')).json).toEqual({ ok: true, settlements: [], hasMore: false, nextCursor: null });

    const pay = async (amount: number) => {
      const id = await openSession(ctx, shop.apiKey, { amount });
      const gross = await pressPay(ctx, id);
      await payFromWallet(chain, usdc, (await sessionRow(ctx, id)).depositAddress, gross);
      await waitForStatus(ctx, id, 'completed');
      return { id, share: commissionSplit(gross, 100).merchant };
    };
    const first = [await pay(10), await pay(11)];
    const owed = first.reduce((sum, p) => sum + p.share, 0n);

    // Completed, not paid out: the shares are available.
    expect((await get(shop.apiKey, '/balance')).json).toEqual({
      ok: true,
      balances: [{ network: 'polygon', asset: 'USDC', pending: '0.000000', available: formatCrypto(owed), reserved: '0.000000' }],
      topUpAddresses: topUps,
    });
    const others = (await get(other.apiKey, '/balance')).json;
    expect(others).toMatchObject({ ok: true, balances: [] });
    expect(others.topUpAddresses.map((t: { address: string }) => t.address)).not.toContain(topUps[0]!.address);
    // No settlement pays them yet.
    for (const p of first) expect((await get(shop.apiKey, `/settlements/${p.id}`)).json).toMatchObject({ ok: false, error: 'NotFound' });

    await schedule.unpause();
    const [paid] = await eventually(
      async () => (await get(shop.apiKey, '/settlements')).json.settlements as Settlement[],
      (list) => list.length > 0 && list.every((s) => s.status === 'confirmed'),
      60_000,
      'the payout confirmed',
    );
    await schedule.pause();

    // One transfer for both payments, exactly their shares, to the merchant's wallet, and on chain.
    expect(paid).toMatchObject({ status: 'confirmed', network: 'polygon', asset: 'USDC', walletAddress: shop.wallet });
    expect(paid!.id).toMatch(/^po_/);
    expect(micro(paid!.amount)).toBe(owed);
    expect(paid!.payments.map((p) => p.paymentId).sort()).toEqual(first.map((p) => p.id).sort());
    for (const p of first) expect(paid!.payments.find((x) => x.paymentId === p.id)!.amount).toBe(formatCrypto(p.share));
    expect(paid!.payments.reduce((sum, p) => sum + micro(p.amount), 0n)).toBe(micro(paid!.amount));
    expect(await balanceOf(chain, usdc, shop.wallet)).toBe(owed);
    expect(paid!.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(paid!.explorerUrl).toBe(explorerUrlFor('polygon', paid!.transactionHash!));
    expect(paid!.confirmedAt).not.toBeNull();
    // The payments' own lookups name the same transfer.
    const lookup = await get(shop.apiKey, `/transactions/${first[0]!.id}`);
    expect(lookup.json.transaction).toMatchObject({ transactionHash: paid!.transactionHash, explorerUrl: paid!.explorerUrl });

    // Paid out: nothing is left available.
    expect((await get(shop.apiKey, '/balance')).json.balances).toEqual([
      { network: 'polygon', asset: 'USDC', pending: '0.000000', available: '0.000000', reserved: '0.000000' },
    ]);

    // The payout by its id and by each payment it pays: the same settlement.
    const byId = await get(shop.apiKey, `/settlements/${paid!.id}`);
    expect(byId.status).toBe(200);
    expect(byId.json).toEqual({ ok: true, settlement: paid });
    for (const p of first) expect((await get(shop.apiKey, `/settlements/${p.id}`)).json).toEqual({ ok: true, settlement: paid });

    // Another merchant learns nothing of it: 404 for both ids, and an empty list.
    for (const id of [paid!.id, first[0]!.id]) {
      const res = await get(other.apiKey, `/settlements/${id}`);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ ok: false, error: 'NotFound', message: 'Settlement not found.' });
    }
    expect((await get(other.apiKey, '/settlements')).json).toEqual({ ok: true, settlements: [], hasMore: false, nextCursor: null });

    // Ids of no settlement of the merchant's, malformed or not, answer alike; a sweep is no settlement.
    const [sweep] = await ctx.db.sql`select p.id from payouts p join payout_items i on i.payout_id = p.id
      where p.kind = 'sweep' and i.payment_id = ${first[0]!.id}`;
    expect(sweep).toBeDefined();
    const unknown = ['nope', 'po_x', 'SV_unknown', `po_${'0'.repeat(24)}`, `SV_${'a'.repeat(65)}`, sweep!.id as string, shop.id, '%20'];
    for (const id of unknown) {
      const res = await get(shop.apiKey, `/settlements/${encodeURIComponent(id)}`);
      expect(res.status, id).toBe(404);
      expect(res.json, id).toMatchObject({ ok: false, error: 'NotFound', message: 'Settlement not found.' });
    }

    // A second run pays a third payment: a second settlement, newest first.
    const third = await pay(12);
    expect((await get(shop.apiKey, `/settlements/${third.id}`)).status).toBe(404);
    expect((await get(shop.apiKey, '/balance')).json.balances[0].available).toBe(formatCrypto(third.share));
    await schedule.unpause();
    const second = await eventually(
      async () => (await get(shop.apiKey, `/settlements/${third.id}`)).json.settlement as Settlement | undefined,
      (s) => s?.status === 'confirmed',
      60_000,
      'the second payout confirmed',
    );
    await schedule.pause();
    expect(second!.payments).toEqual([{ paymentId: third.id, amount: formatCrypto(third.share) }]);
    expect(micro(second!.amount)).toBe(third.share);

    // A payout of the one-transfer-per-payment model pays one payment (its payment_id the session's):
    // listed the same way, and found by the payment while it is live; a failed one is listed only.
    const perPayment = await seedPayment(ctx.db.db, shop.id, 'completed');
    const failedOne = await seedPayment(ctx.db.db, shop.id, 'completed');
    const hash = `0x${'cd'.repeat(32)}`;
    await ctx.db
      .sql`insert into payouts (id, payment_id, kind, network, asset, from_address, to_address, amount, status, tx_hash, created_at, confirmed_at)
      values ('po_PerPayment00000000000001', ${perPayment}, 'merchant', 'polygon', 'USDC', ${randomAddress()}, ${shop.wallet}, 24625000, 'confirmed', ${hash}, now() - interval '1 day', now() - interval '1 day'),
             ('po_PerPayment00000000000002', ${failedOne}, 'merchant', 'polygon', 'USDC', ${randomAddress()}, ${shop.wallet}, 24625000, 'failed', null, now() - interval '2 days', null)`;
    const old = (await get(shop.apiKey, `/settlements/${perPayment}`)).json.settlement as Settlement;
    expect(old).toMatchObject({
      id: 'po_PerPayment00000000000001',
      status: 'confirmed',
      amount: '24.625000',
      walletAddress: shop.wallet,
      transactionHash: hash,
      explorerUrl: explorerUrlFor('polygon', hash),
      payments: [{ paymentId: perPayment, amount: '24.625000' }],
    });
    expect((await get(shop.apiKey, `/settlements/${failedOne}`)).status).toBe(404);
    expect((await get(other.apiKey, `/settlements/po_PerPayment00000000000001`)).status).toBe(404);
    const failed = (await get(shop.apiKey, '/settlements/po_PerPayment00000000000002')).json.settlement as Settlement;
    expect(failed).toMatchObject({ status: 'failed', transactionHash: null, explorerUrl: null, confirmedAt: null });

    // Paging one at a time returns every settlement once, newest first, as the whole list does.
    const whole = (await get(shop.apiKey, '/settlements?limit=100')).json;
    expect(whole.hasMore).toBe(false);
    const ids = (whole.settlements as Settlement[]).map((s) => s.id);
    expect(ids).toEqual([second!.id, paid!.id, 'po_PerPayment00000000000001', 'po_PerPayment00000000000002']);
    const paged = await allPages(shop.apiKey, 1);
    expect(paged.pages).toBe(4);
    expect(paged.settlements).toEqual(whole.settlements);
    expect((await allPages(shop.apiKey, 3)).settlements).toEqual(whole.settlements);

    // A cursor is taken only as this list handed it to this merchant.
    const cursor = (await get(shop.apiKey, '/settlements?limit=1')).json.nextCursor as string;
    const forged = Buffer.from(JSON.stringify(['2020-01-01T00:00:00.000000Z', paid!.id])).toString('base64url');
    const sessionCursor = Buffer.from(JSON.stringify(['2020-01-01T00:00:00.000000Z', first[0]!.id])).toString('base64url');
    for (const [apiKey, query] of [
      [shop.apiKey, 'cursor=garbage'],
      [shop.apiKey, `cursor=${forged}`],
      [shop.apiKey, `cursor=${sessionCursor}`],
      [other.apiKey, `cursor=${cursor}`],
    ] as const) {
      const res = await get(apiKey, `/settlements?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.json, query).toMatchObject({ ok: false, error: 'ValidationError', details: [{ path: 'querystring.cursor' }] });
    }
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'status=confirmed']) {
      const res = await get(shop.apiKey, `/settlements?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.json.error, query).toBe('ValidationError');
    }

    // A key is needed for all three.
    for (const path of ['/balance', '/settlements', `/settlements/${paid!.id}`]) {
      const res = await http('GET', `${ctx.baseUrl}/api/v1${path}`);
      expect(res.status, path).toBe(401);
      expect(res.json.error, path).toBe('Unauthorized');
    }
  }, 240_000);
});
