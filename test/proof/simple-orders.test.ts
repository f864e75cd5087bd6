import { describe, expect, it } from 'vitest';
import { runsAtRest } from '../support/at-rest';
import { balanceOf, randomAddress, sharedChain } from '../support/chain';
import { useTestApp } from '../support/harness';
import { http } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import {
  chooseRail,
  CUSTOMER_WALLET,
  exceptionRows,
  openOrder,
  orderRow,
  waitForOrder,
  waitForOrderFeeSwept,
  waitForOrderPayouts,
} from './order-support';
import { creditsOf, payFromWallet } from './support';

// Proof on chain for the simple API: an order on a network with a verifier gets its own deposit
// address, the provider delivers there, and only confirmed credits of at least G settle it.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();
const payAtSandbox = (reference: string) =>
  http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference, outcome: 'succeeded' } });

describe('simple orders proven on chain', () => {
  for (const network of ['polygon', 'ethereum', 'base', 'arbitrum'] as const) {
    it(`settles a fiat-rail order on ${network} from the provider's transfer into its own deposit address, then pays it out to the customer's wallet`, async () => {
      const wallet = randomAddress();
      const code = await openOrder(ctx, {
        customer: { wallet_address: wallet, crypto_currency: 'USDC', crypto_currency_network: network.toUpperCase() },
      });
      const opened = await orderRow(ctx, code);
      expect(opened.verification).toBe('chain');
      expect(opened.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
      // The customer's wallet stays the payout destination; the provider delivers to our address.
      expect(opened.depositAddress).not.toBe(wallet);
      expect(opened.walletAddress).toBe(wallet);

      expect((await payAtSandbox(code)).status).toBe(200);
      await waitForOrder(ctx, code, 'settled');
      const settled = await orderRow(ctx, code);
      expect(settled.expectedGross).toBe(25_000_000n);
      expect(settled.received).toBe(25_000_000n);
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.depositTransactionHash as `0x${string}` });
      expect(receipt.status).toBe('success');
      expect(await creditsOf(ctx, code)).toEqual([
        { network, hash: settled.depositTransactionHash, logIndex: expect.any(Number), amount: 25_000_000n, state: 'credited' },
      ]);

      // What was received goes on to the customer's wallet, once, less the network's fee,
      // which a settlement run sweeps into the treasury; payout_dispatched once it is broadcast, and the
      // order's transaction is then the payout's.
      const fee = ctx.config.simpleOrders.networkFeeMicro[network];
      expect(fee).toBeGreaterThan(0n);
      const payouts = await waitForOrderPayouts(ctx, code);
      expect(payouts.map((p) => [p.kind, p.amount])).toEqual([['customer', 25_000_000n - fee]]);
      expect(await balanceOf(chain, chain.tokens[network].USDC, wallet)).toBe(25_000_000n - fee);
      const payout = payouts.find((p) => p.kind === 'customer')!;
      const paid = await orderRow(ctx, code);
      expect(paid).toMatchObject({
        status: 'settled',
        payoutDispatched: true,
        transactionHash: payout.txHash,
        depositTransactionHash: settled.depositTransactionHash,
      });
      await waitForOrderFeeSwept(ctx, code);
      expect(await balanceOf(chain, chain.tokens[network].USDC, opened.depositAddress)).toBe(0n);
      const [ledger] = await ctx.db
        .sql`select coalesce(sum(amount), 0)::text as owed from ledger_entries where account = ${`customer_payable:${code}`}`;
      expect(ledger!.owed).toBe('0');

      const view = (await http('GET', `${ctx.baseUrl}/api/transaction?transaction_code=${code}`)).json.data;
      expect(view).toMatchObject({ status: 'settled', received_usd: 25, payout_dispatched: true, verification: 'chain' });
      const page = await http('GET', `${ctx.baseUrl}/pay/${code}`);
      expect(page.text).toContain('were sent to your wallet');
    });
  }

  it('settles a crypto-rail order from the amount the provider forwards to the deposit address', async () => {
    const code = await openOrder(ctx, { fiat_amount: 40 });
    const rail = await chooseRail(ctx, code, 'usdt_ethereum');
    expect(rail).toMatchObject({ amount: '40.000000', asset: 'USDT', network: 'ETHEREUM' });
    expect((await orderRow(ctx, code)).expectedGross).toBe(40_000_000n);
    expect((await payAtSandbox(code)).status).toBe(200);
    await waitForOrder(ctx, code, 'settled');
    const { depositAddress, received } = await orderRow(ctx, code);
    expect(received).toBe(40_000_000n);
    // Paid on to the customer's wallet less the network fee, which a run sweeps: the deposit address ends empty.
    const fee = ctx.config.simpleOrders.networkFeeMicro.polygon;
    expect((await waitForOrderPayouts(ctx, code)).map((p) => [p.kind, p.amount])).toEqual([['customer', 40_000_000n - fee]]);
    await waitForOrderFeeSwept(ctx, code);
    expect(await balanceOf(chain, chain.tokens.polygon.USDC, depositAddress)).toBe(0n);
  });

  it('moves to processing only on a forged success with a valid signature and no transfer', async () => {
    const code = await openOrder(ctx);
    await chooseRail(ctx, code, 'card');
    const { depositAddress } = await orderRow(ctx, code);
    const forged = sandboxEvent(
      { id: code, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress: depositAddress },
      'payment.succeeded',
      { destinationAmount: '25.000000' },
    );
    expect((await postCallback(ctx.app, forged, { secret: ctx.config.providers.sandbox.callbackSecret })).statusCode).toBe(200);
    await waitForOrder(ctx, code, 'processing');
    await runsAtRest(ctx.temporal, [code]);
    const row = await orderRow(ctx, code);
    expect(row).toMatchObject({ status: 'processing', received: null, payoutDispatched: false, transactionHash: null });
  });

  it('refuses a success callback naming the customer wallet instead of the deposit address', async () => {
    const code = await openOrder(ctx);
    await chooseRail(ctx, code, 'card');
    const wrong = sandboxEvent(
      { id: code, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress: CUSTOMER_WALLET },
      'payment.succeeded',
    );
    expect((await postCallback(ctx.app, wrong, { secret: ctx.config.providers.sandbox.callbackSecret })).statusCode).toBe(422);
    expect((await orderRow(ctx, code)).status).toBe('pending');
  });

  it('does not settle on less than G, and settles with an overpaid record on more', async () => {
    const short = await openOrder(ctx);
    await chooseRail(ctx, short, 'card');
    const shortRow = await orderRow(ctx, short);
    const under = await payFromWallet(chain, chain.tokens.polygon.USDC, shortRow.depositAddress, shortRow.expectedGross! - 1n);

    const over = await openOrder(ctx);
    await chooseRail(ctx, over, 'card');
    const overRow = await orderRow(ctx, over);
    await payFromWallet(chain, chain.tokens.polygon.USDC, overRow.depositAddress, overRow.expectedGross! + 2_500_000n);
    await waitForOrder(ctx, over, 'settled');
    expect((await orderRow(ctx, over)).received).toBe(27_500_000n);
    expect(await exceptionRows(ctx, over)).toMatchObject([{ paymentKind: 'simple_order', kind: 'overpaid', amount: 2_500_000n }]);

    expect((await creditsOf(ctx, short)).map((c) => c.hash)).toEqual([under.transactionHash]);
    expect((await orderRow(ctx, short)).status).toBe('pending');
  });

  it("keeps the provider's word on a network without a verifier (tron)", async () => {
    const code = await openOrder(ctx, {
      customer: { wallet_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', crypto_currency: 'USDT', crypto_currency_network: 'TRON' },
    });
    expect(await orderRow(ctx, code)).toMatchObject({ verification: 'provider', depositAddress: null });
    expect((await payAtSandbox(code)).status).toBe(200);
    await waitForOrder(ctx, code, 'settled');
    expect((await orderRow(ctx, code)).payoutDispatched).toBe(true);
  });
});
