import { describe, expect, it } from 'vitest';
import { ledgerAccount } from '../../src/domain/ledger';
import { ledgerBalance, unbalancedPostings } from '../payouts/support';
import { paymentAtRest } from '../support/at-rest';
import { balanceOf, payFromWallet, randomAddress, sharedChain } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { exceptionRows, openOrder, orderRow, waitForOrder } from '../proof/order-support';

// Exceptions of the simple API: an order's deposit address stays watched after the order ended
// (LATE_DEPOSIT_WATCH_HOURS), so money sent there later is credited to it and becomes an exception
// an operator sees, `late` after expiry and `duplicate` after it was paid, instead of nothing, and
// that an operator can send back on chain like a checkout session's.
const ctx = useTestApp({ SESSION_TTL_SECONDS: '5' }, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();
const usdc = chain.tokens.polygon.USDC;

const openExceptions = async (code: string) => {
  const res = await ctx.app.inject({ method: 'GET', url: '/admin/v1/exceptions?status=open', headers: adminHeaders });
  return (res.json().exceptions as { paymentId: string; paymentKind: string; kind: string; amount: string }[]).filter(
    (e) => e.paymentId === code,
  );
};

describe('money to a simple order that has ended', () => {
  it('is a late exception after expiry, held at the order’s address for the customer, once', async () => {
    const code = await openOrder(ctx);
    await waitForOrder(ctx, code, 'expired', 30_000);
    await ctx.temporal.workflow.getHandle(code).result();
    const { depositAddress } = await orderRow(ctx, code);
    await payFromWallet(chain, usdc, depositAddress, 3_000_000n);
    const rows = await eventually(
      () => exceptionRows(ctx, code),
      (r) => r.length > 0,
      30_000,
      'the late exception',
    );
    expect(rows).toEqual([expect.objectContaining({ paymentKind: 'simple_order', kind: 'late', amount: 3_000_000n })]);
    const [credit] = await ctx.db.sql`select amount_micro::text as amount, state from chain_credits where payment_id = ${code}`;
    // Recorded for the order, but as an exception's money: it never counts towards the order's G.
    expect(credit).toEqual({ amount: '3000000', state: 'held' });
    expect(await openExceptions(code)).toEqual([
      expect.objectContaining({ paymentKind: 'simple_order', kind: 'late', amount: '3.000000' }),
    ]);
    // The order stays as it ended.
    expect((await orderRow(ctx, code)).status).toBe('expired');
    await paymentAtRest(ctx, code);
    expect(await exceptionRows(ctx, code)).toHaveLength(1);

    // An operator sends it back on chain: the customer's wallet gets exactly the late amount, once.
    const [exception] = await exceptionRows(ctx, code);
    const customer = randomAddress();
    const refund = () =>
      ctx.app.inject({
        method: 'POST',
        url: `/admin/v1/exceptions/${exception!.id}/refund`,
        headers: adminHeaders,
        payload: { address: customer },
      });
    const asked = await refund();
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json()).toMatchObject({
      ok: true,
      exception: { id: exception!.id, paymentKind: 'simple_order' },
      refund: { address: customer, amount: '3.000000' },
    });
    await eventually(
      () => balanceOf(chain, usdc, customer),
      (b) => b === 3_000_000n,
      60_000,
      'the refund to arrive',
    );
    await eventually(
      () => exceptionRows(ctx, code),
      (r) => r[0]?.status === 'refunded',
      20_000,
      'the exception refunded',
    );
    expect(await balanceOf(chain, usdc, depositAddress)).toBe(0n);
    expect((await refund()).json()).toMatchObject({ exception: { status: 'refunded' }, refund: { status: 'confirmed' } });
    expect(await ledgerBalance(ctx, ledgerAccount.exceptionHeld(exception!.id), 'USDC')).toBe(0n);
    expect(await ledgerBalance(ctx, ledgerAccount.deposit(depositAddress), 'USDC')).toBe(0n);
    expect(await unbalancedPostings(ctx)).toEqual([]);
    await paymentAtRest(ctx, code);
    expect(await balanceOf(chain, usdc, customer)).toBe(3_000_000n);
  }, 120_000);

  it('is a duplicate exception after the order was paid and paid out', async () => {
    const code = await openOrder(ctx);
    expect(
      (await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: code, outcome: 'succeeded' } }))
        .status,
    ).toBe(200);
    await waitForOrder(ctx, code, 'settled');
    await ctx.temporal.workflow.getHandle(code).result();
    const { depositAddress } = await orderRow(ctx, code);
    await payFromWallet(chain, usdc, depositAddress, 25_000_000n);
    const rows = await eventually(
      () => exceptionRows(ctx, code),
      (r) => r.length > 0,
      30_000,
      'the duplicate exception',
    );
    expect(rows).toEqual([expect.objectContaining({ paymentKind: 'simple_order', kind: 'duplicate', amount: 25_000_000n })]);
    expect((await orderRow(ctx, code)).status).toBe('settled');
  }, 90_000);
});
