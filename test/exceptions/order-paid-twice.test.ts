import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, payFromWallet, randomAddress } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { killHard } from '../support/processes';
import { startRpcTrapProxy } from '../support/rpc-trap-proxy';
import { exceptionRows, openOrder, orderRow, waitForOrder, waitForOrderFeeSwept } from '../proof/order-support';
import { ownTreasury, startWorkerVia } from '../payouts/support';
import { replayRuns } from '../temporal/histories';

// Exceptions of the simple API, at the edge the watcher cannot cover: money that reaches a
// simple order's run after the order ended but before the run closed (here: the customer pays again
// while the order's payout is still on its way) is a `duplicate` exception, as it is once the run has
// closed, not a credit nobody owns. The worker reaches the chain through a proxy that holds the
// payout's broadcast, so the run is provably still open when the second payment arrives.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true });
const chain = own.chain;
const usdc = chain.tokens.polygon.USDC;
let proxy: Awaited<ReturnType<typeof startRpcTrapProxy>>;
let worker: ChildProcess | undefined;
beforeAll(async () => {
  proxy = await startRpcTrapProxy(chain.rpcUrl);
  worker = await startWorkerVia(ctx, proxy.url);
});
afterAll(async () => {
  if (worker) await killHard(worker);
  await proxy.close();
});

describe('a simple order paid twice while its payout runs', () => {
  it('records the second payment as a duplicate exception, and pays the customer the order’s amount once', async () => {
    const wallet = randomAddress();
    const code = await openOrder(ctx, {
      customer: { wallet_address: wallet, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
    });
    let held = false;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    proxy.arm({
      method: 'eth_sendRawTransaction',
      when: 'before',
      spring: async () => {
        held = true;
        await released;
      },
    });
    expect(
      (await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: code, outcome: 'succeeded' } }))
        .status,
    ).toBe(200);
    await waitForOrder(ctx, code, 'settled', 30_000);
    await eventually(
      async () => held,
      (h) => h,
      30_000,
      'the payout’s broadcast held',
    );
    const { depositAddress, expectedGross } = await orderRow(ctx, code);

    // The order is settled, its run is still paying out: the customer sends the money again.
    await payFromWallet(chain, usdc, depositAddress, 5_000_000n);
    const rows = await eventually(
      () => exceptionRows(ctx, code),
      (r) => r.length > 0,
      30_000,
      'the duplicate exception',
    );
    expect(rows).toEqual([expect.objectContaining({ paymentKind: 'simple_order', kind: 'duplicate', status: 'open', amount: 5_000_000n })]);
    const credits = await ctx.db
      .sql`select state, amount_micro::text as amount from chain_credits where payment_id = ${code} order by block_number`;
    expect(credits).toEqual([
      { state: 'credited', amount: expectedGross!.toString() },
      { state: 'held', amount: '5000000' },
    ]);

    // The payout goes on: the customer's wallet gets the order's amount less its network fee, the
    // second payment stays held.
    release();
    const fee = ctx.config.simpleOrders.networkFeeMicro.polygon;
    await eventually(
      () => balanceOf(chain, usdc, wallet),
      (b) => b === expectedGross! - fee,
      60_000,
      'the payout to the customer',
    );
    await eventually(
      () => orderRow(ctx, code),
      (o) => o.payoutDispatched,
      20_000,
      'payout_dispatched',
    );
    await ctx.temporal.workflow.getHandle(code).result();
    // The duplicate stays, held for a refund; a settlement run sweeps the order's network fee.
    await waitForOrderFeeSwept(ctx, code);
    expect(await balanceOf(chain, usdc, depositAddress)).toBe(5_000_000n);
    expect(await exceptionRows(ctx, code)).toHaveLength(1);
    // Replayed here, and recorded under RECORD_HISTORIES=<label> into the committed histories CI replays.
    await replayRuns(ctx.temporal, 'simple-order', { paidTwiceDuringPayout: code });
  }, 120_000);
});
