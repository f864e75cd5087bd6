import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { commissionSplit, formatCrypto } from '../../src/domain/money';
import type { DepositFact } from '../../src/domain/deposit-fact';
import { topUpFact } from '../../src/watchers/top-ups';
import { balanceOf, payFromWallet, randomAddress } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import {
  ledgerBalance,
  merchantWithFreshWallet,
  openSession,
  ownTreasury,
  reconciliationDifferences,
  waitForPayouts,
} from '../payouts/support';

// A merchant's top-up address (docs/settlement.md): a merchant paid out to zero cannot refund a
// completed payment (409), sends stablecoin to its own address, sees it available once confirmed,
// refunds from it; the next settlement run sweeps the top-up into the treasury like a payment's
// deposit, and the ledger equals the chain. The reorg re-check is off: the second test tells the
// watcher's booking of logs no chain holds, which the re-check would rightly take back meanwhile.
const own = ownTreasury({ REORG_WATCH_HOURS: '0' });
const { chain } = own;
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });

const balance = async (apiKey: string) => {
  const res = await http('GET', `${ctx.baseUrl}/api/v1/balance`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return res.json as {
    balances: { network: string; asset: string; pending: string; available: string; reserved: string }[];
    topUpAddresses: { network: string; address: Address }[];
  };
};

const refund = (paymentId: string, amount: bigint, address: string) =>
  ctx.app.inject({
    method: 'POST',
    url: `/admin/v1/payments/${paymentId}/refunds`,
    headers: adminHeaders,
    payload: { amount: formatCrypto(amount), address },
  });

describe('top-up addresses', () => {
  it('credit the merchant’s balance once confirmed, pay a refund a paid-out merchant could not, and are swept into the treasury', async () => {
    const merchant = await merchantWithFreshWallet(ctx, 100);
    const other = await merchantWithFreshWallet(ctx, 100);
    const id = await openSession(ctx, merchant.apiKey, { amount: 10 });
    const gross = await pressPay(ctx, id);
    await payFromWallet(chain, chain.tokens.polygon.USDC, (await sessionRow(ctx, id)).depositAddress, gross);
    await waitForStatus(ctx, id, 'completed');
    await waitForPayouts(ctx, id);
    const { merchant: share } = commissionSplit(gross, 100);
    expect(await balanceOf(chain, chain.tokens.polygon.USDC, merchant.wallet)).toBe(share);

    // Paid out to zero: the refund has nothing to draw on, and says so.
    const customer = randomAddress();
    const refused = await refund(id, 1_000_000n, customer);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ ok: false, error: 'InsufficientBalance' });
    expect(refused.json().message).toContain('0.00 USDC');

    // One address per merchant and network, the same on every read, never another merchant's.
    const first = await balance(merchant.apiKey);
    const polygon = first.topUpAddresses.find((t) => t.network === 'polygon')!.address;
    expect((await balance(merchant.apiKey)).topUpAddresses).toEqual(first.topUpAddresses);
    const theirs = (await balance(other.apiKey)).topUpAddresses.map((t) => t.address);
    expect(theirs).not.toContain(polygon);
    expect(new Set(first.topUpAddresses.map((t) => t.address)).size).toBe(first.topUpAddresses.length);

    await payFromWallet(chain, chain.tokens.polygon.USDC, polygon, 5_000_000n);
    await eventually(
      async () => (await balance(merchant.apiKey)).balances.find((b) => b.network === 'polygon' && b.asset === 'USDC')?.available,
      (available) => available === '5.000000',
      30_000,
      'the top-up available',
    );

    const sent = await refund(id, 1_000_000n, customer);
    expect(sent.statusCode).toBe(201);
    await eventually(
      () => balanceOf(chain, chain.tokens.polygon.USDC, customer),
      (b) => b === 1_000_000n,
      60_000,
      'the refund on chain',
    );
    // The settlement run swept the top-up into the treasury; nothing is left at the address.
    await eventually(
      () => ctx.db.sql`select p.status from payout_items i join payouts p on p.id = i.payout_id
                        where i.deposit_address = ${polygon} and p.kind = 'sweep'`,
      (rows) => rows.length === 1 && rows[0]!.status === 'confirmed',
      60_000,
      'the top-up swept',
    );
    expect(await balanceOf(chain, chain.tokens.polygon.USDC, polygon)).toBe(0n);
    expect(await ledgerBalance(ctx, `deposit:${polygon}`, 'USDC')).toBe(0n);
    const after = (await balance(merchant.apiKey)).balances.find((b) => b.network === 'polygon' && b.asset === 'USDC')!;
    expect(after.available).toBe('4.000000');
    // The top-up stays the merchant's for refunds: no payout pays it out by itself.
    const payouts = await ctx.db.sql`select count(*)::int as n from payouts p join payout_items i on i.payout_id = p.id
                                      join transactions t on t.payment_id = i.payment_id
                                     where p.kind = 'merchant' and t.merchant_id = ${merchant.id}`;
    expect(payouts[0]!.n).toBe(1);
    // A transfer the chain has and the worker has not recorded yet (the refund's receipt, the
    // merchant's payout) is a difference until it is: clean once none is in flight.
    await eventually(
      () => reconciliationDifferences(ctx),
      (differences) => differences.length === 0,
      30_000,
      'reconciliation clean',
    );
  });

  it('books a log once however often the watcher tells it, and takes it back when its block leaves the chain', async () => {
    const merchant = await merchantWithFreshWallet(ctx, 100);
    const address = (await balance(merchant.apiKey)).topUpAddresses.find((t) => t.network === 'polygon')!.address;
    const reference = `topup:${merchant.id}:polygon`;
    const fact: DepositFact = {
      kind: 'credited',
      network: 'polygon',
      transactionHash: `0x${'ab'.repeat(32)}`,
      logIndex: 2,
      asset: 'USDT',
      token: chain.tokens.polygon.USDT,
      from: randomAddress(),
      to: address,
      amountMicro: '2500000',
      blockNumber: '77',
      blockHash: `0x${'cd'.repeat(32)}`,
    };
    const available = () => ledgerBalance(ctx, `merchant:${merchant.id}:available`, 'USDT');
    await topUpFact(ctx.db.db, reference, merchant.id, fact);
    await topUpFact(ctx.db.db, reference, merchant.id, fact);
    expect(await available()).toBe(-2_500_000n);
    await topUpFact(ctx.db.db, reference, merchant.id, { ...fact, kind: 'removed' });
    expect(await available()).toBe(0n);
    // Mined again in another block: news again, credited again once.
    const again = { ...fact, blockNumber: '78', blockHash: `0x${'ef'.repeat(32)}` };
    await topUpFact(ctx.db.db, reference, merchant.id, again);
    await topUpFact(ctx.db.db, reference, merchant.id, again);
    expect(await available()).toBe(-2_500_000n);
    // A token this deployment does not configure is recorded, credited to nobody.
    await topUpFact(ctx.db.db, reference, merchant.id, { ...fact, logIndex: 3, asset: null, token: randomAddress() });
    expect(await available()).toBe(-2_500_000n);
    const credits = await ctx.db.sql`select state from chain_credits where payment_id = ${reference} order by log_index`;
    expect(credits.map((c) => c.state)).toEqual(['credited', 'wrong_asset']);
  });
});
