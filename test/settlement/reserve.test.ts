import { describe, expect, it } from 'vitest';
import { commissionSplit, formatCrypto } from '../../src/domain/money';
import type { SettlementRunOutcome } from '../../src/workflows/settlement/workflow';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';
import { balanceOf, payFromWallet, randomAddress } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { ledgerBalance, merchantWithFreshWallet, openSession, ownTreasury, reconciliationDifferences } from '../payouts/support';

// An operator's settings of a merchant's payouts (docs/settlement.md): a reserve target that runs
// fill from what is available before paying out (refunds draw on it after `available`, a lowered
// target's excess is paid with the next payout), and a payout asked for now, which a `manual`
// schedule would otherwise never send. Runs here are started by the test, one at a time.
const own = ownTreasury();
const { chain } = own;
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });

const admin = (method: 'PUT' | 'POST', url: string, payload?: Record<string, string>) =>
  ctx.app.inject({ method, url: `/admin/v1${url}`, headers: adminHeaders, ...(payload === undefined ? {} : { payload }) });

/** One settlement run of polygon, to its end. */
const run = (): Promise<SettlementRunOutcome> =>
  ctx.temporal.workflow.execute('settlementRun', {
    workflowId: `reserve-run-${Date.now()}-${Math.random()}`,
    taskQueue: ctx.config.temporal.taskQueue,
    args: [{ networks: ['polygon'] }],
  });

describe('reserve targets and payout requests', () => {
  it('keep the reserve back from payouts, pay a manual merchant when asked, and pay a lowered reserve’s excess', async () => {
    await ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue)).pause();
    const m = await merchantWithFreshWallet(ctx, 100);
    const usdc = chain.tokens.polygon.USDC;
    const balance = async (account: 'available' | 'reserved') => -(await ledgerBalance(ctx, `merchant:${m.id}:${account}`, 'USDC'));

    // Bad amounts change nothing.
    for (const amount of ['-1', 'ten', '1.0000001']) {
      const res = await admin('PUT', `/merchants/${m.id}/reserve`, { amount });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ ok: false, error: 'ValidationError', details: [{ path: 'amount' }] });
    }
    const set = await admin('PUT', `/merchants/${m.id}/reserve`, { amount: '3' });
    expect(set.statusCode).toBe(200);
    expect(set.json().merchant.payouts).toEqual({ schedule: 'instant', minimum: '0.000000', reserveTarget: '3.000000', requestedAt: null });
    await ctx.db.sql`update merchants set payout_schedule = 'manual' where id = ${m.id}`;

    const pay = async (amount: number) => {
      const id = await openSession(ctx, m.apiKey, { amount });
      const gross = await pressPay(ctx, id);
      await payFromWallet(chain, usdc, (await sessionRow(ctx, id)).depositAddress, gross);
      await waitForStatus(ctx, id, 'completed');
      return commissionSplit(gross, 100).merchant;
    };
    const first = await pay(10);
    // Swept, not paid: the schedule is manual.
    expect(await run()).toEqual({ sweeps: 1, payouts: 0, failed: 0 });
    expect(await balance('available')).toBe(first);

    // The operator asks: the run pays all but the reserve, and fills the reserve.
    const asked = await admin('POST', `/merchants/${m.id}/payouts/request`);
    expect(asked.statusCode).toBe(200);
    expect(asked.json().merchant.payouts.requestedAt).not.toBeNull();
    expect(await run()).toEqual({ sweeps: 0, payouts: 1, failed: 0 });
    expect(await balanceOf(chain, usdc, m.wallet)).toBe(first - 3_000_000n);
    expect(await balance('reserved')).toBe(3_000_000n);
    expect(await balance('available')).toBe(0n);

    // A refund draws on the reserve once nothing is available.
    const customer = randomAddress();
    const refunded = await admin(
      'POST',
      `/payments/${(await ctx.db.sql`select payment_id from transactions where merchant_id = ${m.id}`)[0]!.payment_id}/refunds`,
      {
        amount: '2',
        address: customer,
      },
    );
    expect(refunded.statusCode).toBe(201);
    expect(await balance('reserved')).toBe(1_000_000n);
    await eventually(
      () => balanceOf(chain, usdc, customer),
      (b) => b === 2_000_000n,
      60_000,
      'the refund on chain',
    );

    // Lowered to nothing: the next payout pays the reserve's rest with the new payment's share.
    expect((await admin('PUT', `/merchants/${m.id}/reserve`, { amount: '0' })).statusCode).toBe(200);
    const second = await pay(5);
    expect(await run()).toEqual({ sweeps: 1, payouts: 0, failed: 0 });
    expect((await admin('POST', `/merchants/${m.id}/payouts/request`)).statusCode).toBe(200);
    expect(await run()).toEqual({ sweeps: 0, payouts: 1, failed: 0 });
    expect(await balanceOf(chain, usdc, m.wallet)).toBe(first - 3_000_000n + second + 1_000_000n);
    expect(await balance('reserved')).toBe(0n);
    expect(await balance('available')).toBe(0n);
    expect(formatCrypto(await balanceOf(chain, usdc, m.wallet))).toBe(formatCrypto(first + second - 2_000_000n));
    expect(await reconciliationDifferences(ctx)).toEqual([]);
  });
});
