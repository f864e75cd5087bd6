import { describe, expect, it } from 'vitest';
import { commissionSplit, formatCrypto } from '../../src/domain/money';
import { findPayout } from '../../src/db/queries/payouts';
import { findTransaction } from '../../src/db/queries/transactions';
import { settlementsCsv } from '../../src/domain/settlements-csv';
import { payFromWallet } from '../support/chain';
import { spawnOps } from '../cli/run-ops';
import { ADMIN_TOKEN, adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { merchantWithFreshWallet, openSession, ownTreasury, waitForPayouts } from './support';

// GET /admin/v1/merchants/{id}/settlements.csv?from&to, a merchant's settled
// transactions (merchant payout confirmed) with gross, commission, net and both transactions.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;

const csvOf = (merchantId: string, query = '') =>
  ctx.app.inject({ method: 'GET', url: `/admin/v1/merchants/${merchantId}/settlements.csv${query}`, headers: adminHeaders });

describe('settlements CSV', () => {
  it('lists a settled payment with its amounts and both transactions, within the range only', async () => {
    const m = await merchantWithFreshWallet(ctx, 150);
    // The merchant's own order id is theirs to write: a comma and a formula-like start are quoted and defused.
    const id = await openSession(ctx, m.apiKey, { orderId: '=1042,b' });
    const g = await pressPay(ctx, id);
    const deposit = await payFromWallet(chain, chain.tokens.polygon.USDC, (await sessionRow(ctx, id)).depositAddress, g);
    await waitForStatus(ctx, id, 'completed');
    const payout = (await waitForPayouts(ctx, id)).find((p) => p.kind === 'merchant')!;
    const [tx, confirmed] = await Promise.all([findTransaction(ctx.db.db, id), findPayout(ctx.db.db, payout.id)]);
    const split = commissionSplit(g, 150);

    const res = await csvOf(m.id, `?from=2020-01-01&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.body.split('\r\n')).toEqual([
      'payment_id,asset,network,gross,commission,net,deposit_tx,payout_tx,completed_at,settled_at,rail_type,provider,order_id,paid_with',
      [
        id,
        'USDC',
        'polygon',
        formatCrypto(g),
        formatCrypto(split.commission),
        formatCrypto(split.merchant),
        deposit.transactionHash,
        payout.txHash,
        tx!.completedAt!.toISOString(),
        confirmed!.confirmedAt!.toISOString(),
        'fiat_to_crypto',
        'sandbox',
        `"'=1042,b"`,
        'Through sandbox',
      ].join(','),
      '',
    ]);
    // The ops CLI prints the same CSV for the same range.
    const env = { SVC_URL: ctx.baseUrl, ADMIN_TOKEN };
    const cli = await spawnOps(
      ['merchants', 'settlements', m.id, '--from', '2020-01-01', '--to', new Date(Date.now() + 60_000).toISOString()],
      env,
    );
    expect(cli.code).toBe(0);
    expect(cli.stdout.split(/\r?\n/)).toEqual(res.body.split('\r\n'));
    const refused = await spawnOps(['merchants', 'settlements', m.id, '--from', '2026-02-01', '--to', '2026-01-01'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('ValidationError');
    // A range that ends before the payout, and another merchant: only the header.
    expect((await csvOf(m.id, '?from=2020-01-01&to=2020-02-01')).body).toBe(
      'payment_id,asset,network,gross,commission,net,deposit_tx,payout_tx,completed_at,settled_at,rail_type,provider,order_id,paid_with\r\n',
    );
    const other = await createApprovedMerchant(ctx.app);
    expect((await csvOf(other.id)).body.split('\r\n')).toHaveLength(2);
  }, 120_000);

  it('refuses an unknown merchant, an empty or malformed range, and a missing token', async () => {
    expect((await csvOf('MER_0000000000000000')).statusCode).toBe(404);
    const m = await createApprovedMerchant(ctx.app);
    expect((await csvOf(m.id, '?from=2026-02-01&to=2026-01-01')).json()).toMatchObject({ ok: false, error: 'ValidationError' });
    expect((await csvOf(m.id, '?from=yesterday')).json()).toMatchObject({ ok: false, error: 'ValidationError' });
    const anonymous = await ctx.app.inject({ method: 'GET', url: `/admin/v1/merchants/${m.id}/settlements.csv` });
    expect(anonymous.statusCode).toBe(401);
  });

  it('writes the order id last, empty when the merchant gave none', () => {
    const line = {
      paymentId: 'SV_1',
      asset: 'USDC',
      network: 'polygon',
      grossMicro: 1n,
      commissionMicro: 0n,
      netMicro: 1n,
      depositTransactionHash: null,
      payoutTransactionHash: '0x1',
      completedAt: null,
      settledAt: new Date(0),
      railType: 'crypto_transfer',
      provider: null,
    };
    expect(
      settlementsCsv([
        { ...line, orderId: '@SUM(A1)' },
        { ...line, orderId: null },
        { ...line, orderId: 'a "b"\nc' },
      ]).split('\r\n'),
    ).toEqual([
      'payment_id,asset,network,gross,commission,net,deposit_tx,payout_tx,completed_at,settled_at,rail_type,provider,order_id,paid_with',
      "SV_1,USDC,polygon,0.000001,0.000000,0.000001,,0x1,,1970-01-01T00:00:00.000Z,crypto_transfer,,'@SUM(A1),From the customer's wallet",
      "SV_1,USDC,polygon,0.000001,0.000000,0.000001,,0x1,,1970-01-01T00:00:00.000Z,crypto_transfer,,,From the customer's wallet",
      `SV_1,USDC,polygon,0.000001,0.000000,0.000001,,0x1,,1970-01-01T00:00:00.000Z,crypto_transfer,,"a ""b""\nc",From the customer's wallet`,
      '',
    ]);
  });

  it('quotes cells with commas and defuses formula-like cells', () => {
    const csv = settlementsCsv([
      {
        paymentId: '=HYPERLINK("x")',
        asset: 'USDC',
        network: 'a,b',
        grossMicro: 1n,
        commissionMicro: 0n,
        netMicro: 1n,
        depositTransactionHash: null,
        payoutTransactionHash: '0x1',
        completedAt: null,
        settledAt: new Date(0),
        railType: 'crypto_transfer',
        provider: null,
        orderId: null,
      },
    ]);
    expect(csv.split('\r\n')[1]).toBe(
      `"'=HYPERLINK(""x"")",USDC,"a,b",0.000001,0.000000,0.000001,,0x1,,1970-01-01T00:00:00.000Z,crypto_transfer,,,From the customer's wallet`,
    );
  });
});
