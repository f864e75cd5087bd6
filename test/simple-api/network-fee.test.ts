import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { balanceOf, randomAddress } from '../support/chain';
import { adminHeaders, testConfig, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { orderRow, waitForOrder, waitForOrderFeeSwept, waitForOrderPayouts } from '../proof/order-support';
import { ledgerBalance, ownTreasury, unbalancedPostings } from '../payouts/support';

// A simple order's payout costs the treasury gas, so the order pays a flat network
// fee (SIMPLE_ORDER_NETWORK_FEES), fixed when it is opened, deducted from its payout and sent to the
// treasury as revenue of its own; an order too small to carry it is refused.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;

const openOrder = (amount: number, wallet: string, network = 'POLYGON') =>
  http('POST', `${ctx.baseUrl}/api/checkout`, {
    body: {
      fiat_amount: amount,
      fiat_currency: 'USD',
      customer: { wallet_address: wallet, crypto_currency: 'USDC', crypto_currency_network: network },
    },
  });

describe('simple orders pay their own payout’s gas', () => {
  it('shows the fee and the minimum for every payout network in payment_options', async () => {
    const res = await http('GET', `${ctx.baseUrl}/api/payment_options?fiat_amount=25&fiat_currency=USD`);
    expect(res.status).toBe(200);
    const fees = Object.fromEntries(
      (res.json.data.payout_fees as { currency: string; network: string }[]).map((f) => [`${f.currency}_${f.network}`, f]),
    );
    expect(fees.USDC_POLYGON).toEqual({ currency: 'USDC', network: 'POLYGON', network_fee: '0.050000', minimum_amount_usd: '1.000000' });
    expect(fees.USDC_ETHEREUM).toEqual({ currency: 'USDC', network: 'ETHEREUM', network_fee: '5.000000', minimum_amount_usd: '10.000000' });
    // Paid out by the provider straight to the wallet where we have no verifier: nothing of ours to cover.
    expect(fees.USDT_TRON).toEqual({ currency: 'USDT', network: 'TRON', network_fee: '0.000000', minimum_amount_usd: '1.000000' });
    expect(res.json.data.payment_options.length).toBeGreaterThan(0);
  });

  it('refuses an order below its network’s minimum, in the simple API’s envelope', async () => {
    const res = await openOrder(5, randomAddress(), 'ETHEREUM');
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      status: 'error',
      error: 'ValidationError',
      message:
        'fiat_amount: the order is worth 5.000000 USD, below the minimum of 10.000000 USD (its payout to USDC on ETHEREUM carries a network fee of 5.000000 USDC).',
    });
    expect((await ctx.db.sql`select count(*)::int as n from simple_orders`)[0]!.n).toBe(0);
    // The same amount on a network whose fee it carries is taken.
    expect((await openOrder(5, randomAddress(), 'POLYGON')).status).toBe(201);
  });

  it('pays the customer what arrived less the fee, the fee to the treasury, with a balanced ledger and a clean reconciliation', async () => {
    const wallet = randomAddress();
    const token = chain.tokens.polygon.USDC;
    const treasuryBefore = await balanceOf(chain, token, own.treasury);
    const opened = await openOrder(25, wallet);
    expect(opened.status).toBe(201);
    expect(opened.json.data.network_fee).toBe('0.050000');
    const code = opened.json.data.transaction_code as string;
    const fee = 50_000n;

    const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
      body: { reference: code, outcome: 'succeeded' },
    });
    expect(paid.status).toBe(200);
    await waitForOrder(ctx, code, 'settled');
    const { received, depositAddress } = await orderRow(ctx, code);
    expect(received).toBe(25_000_000n);

    const payouts = await waitForOrderPayouts(ctx, code);
    // One call of the sweeper by the treasury forwards the customer's part; a settlement run sweeps the fee.
    expect(payouts.map((p) => [p.kind, p.from.toLowerCase(), p.amount])).toEqual([
      ['customer', own.treasury.toLowerCase(), received! - fee],
    ]);
    expect(await balanceOf(chain, token, wallet)).toBe(received! - fee);
    await waitForOrderFeeSwept(ctx, code);
    expect((await balanceOf(chain, token, own.treasury)) - treasuryBefore).toBe(fee);
    expect(await balanceOf(chain, token, depositAddress)).toBe(0n);

    // The ledger: every posting balances, the customer is owed nothing more, the fee is revenue of
    // its own (not commission), and the treasury holds it.
    expect(await unbalancedPostings(ctx)).toEqual([]);
    expect(await ledgerBalance(ctx, `customer_payable:${code}`, 'USDC')).toBe(0n);
    expect(await ledgerBalance(ctx, 'network_fee_revenue', 'USDC')).toBe(-fee);
    expect(await ledgerBalance(ctx, 'commission_revenue', 'USDC')).toBe(0n);
    expect(await ledgerBalance(ctx, `treasury:${own.treasury}`, 'USDC')).toBe(fee);
    expect(await ledgerBalance(ctx, `deposit:${depositAddress}`, 'USDC')).toBe(0n);
    const reconciliation = await eventually(
      async () => (await ctx.app.inject({ method: 'GET', url: '/admin/v1/reconciliation', headers: adminHeaders })).json(),
      (r) => r.ok === true,
      10_000,
      'the reconciliation',
    );
    expect(reconciliation.differences).toEqual([]);

    const view = (await http('GET', `${ctx.baseUrl}/api/transaction?transaction_code=${code}`)).json.data;
    expect(view).toMatchObject({ status: 'settled', received_usd: 25, network_fee: 0.05, payout_dispatched: true });
  }, 120_000);

  it('reads the fees and the minimum from the configuration, refusing a malformed one', () => {
    const config = testConfig('postgres://x@127.0.0.1/x', {
      SIMPLE_ORDER_NETWORK_FEES: 'polygon:0.2, base:0',
      SIMPLE_ORDER_MIN_USD: '3.5',
    });
    expect(config.simpleOrders).toEqual({
      networkFeeMicro: { ethereum: 5_000_000n, polygon: 200_000n, base: 0n, arbitrum: 50_000n },
      minUsdMicro: 3_500_000n,
    });
    expect(() => loadConfig({ ADMIN_TOKEN: 'x'.repeat(24), SECRETS_KEY: 'ab'.repeat(32), SIMPLE_ORDER_NETWORK_FEES: 'solana:1' })).toThrow(
      /SIMPLE_ORDER_NETWORK_FEES/,
    );
    expect(() => loadConfig({ ADMIN_TOKEN: 'x'.repeat(24), SECRETS_KEY: 'ab'.repeat(32), SIMPLE_ORDER_MIN_USD: '0.1234567' })).toThrow(
      /SIMPLE_ORDER_MIN_USD/,
    );
  });
});
