import { describe, expect, it } from 'vitest';
import { commissionSplit } from '../../src/domain/money';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';
import { balanceOf, payFromWallet, randomAddress, sharedChain } from '../support/chain';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { openSession, pressPay, sessionRow, waitForStatus } from '../proof/support';

// PAYOUT_HOLD_SECONDS (docs/settlement.md): a completed payment's share stays pending for the hold,
// out of reach of payouts and refunds, then a settlement run makes it available and pays it.
const HOLD_SECONDS = 4;
const ctx = useTestApp(
  { PAYOUT_INTERVAL_SECONDS: '1', PAYOUT_HOLD_SECONDS: String(HOLD_SECONDS) },
  { listen: true, sandbox: true, worker: true },
);
const chain = sharedChain();

describe('a payout hold', () => {
  it('keeps a share pending for the hold, then releases and pays it', async () => {
    const wallet = randomAddress();
    const m = await createApprovedMerchant(ctx.app, {
      name: 'Held Shop',
      commissionBps: 100,
      wallets: [{ asset: 'USDC', network: 'polygon', address: wallet }],
    });
    const id = await openSession(ctx, m.apiKey, { amount: 15 });
    const gross = await pressPay(ctx, id);
    await payFromWallet(chain, chain.tokens.polygon.USDC, (await sessionRow(ctx, id)).depositAddress, gross);
    await waitForStatus(ctx, id, 'completed');
    const completedAt = Date.now();
    const share = commissionSplit(gross, 100).merchant;
    const balance = async () =>
      (await http('GET', `${ctx.baseUrl}/api/v1/balance`, { headers: { authorization: `Bearer ${m.apiKey}` } })).json.balances as {
        pending: string;
        available: string;
      }[];
    // Held: pending, nothing available, so nothing to refund from and nothing paid.
    expect(await balance()).toEqual([expect.objectContaining({ pending: (Number(share) / 1e6).toFixed(6), available: '0.000000' })]);
    const refund = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/payments/${id}/refunds`,
      headers: adminHeaders,
      payload: { amount: '1', address: randomAddress() },
    });
    expect(refund.json()).toMatchObject({ ok: false, error: 'InsufficientBalance' });

    await eventually(
      () => balanceOf(chain, chain.tokens.polygon.USDC, wallet),
      (b) => b === share,
      30_000,
      'the share paid out',
    );
    // Not before the hold had passed.
    const [released] = await ctx.db.sql`select min(created_at) as at from ledger_entries where posting_id = ${`released:${id}`}`;
    expect(new Date(released!.at as string).getTime()).toBeGreaterThanOrEqual(completedAt + (HOLD_SECONDS - 1) * 1000);
    expect(await balance()).toEqual([expect.objectContaining({ pending: '0.000000', available: '0.000000' })]);
    await ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue)).pause();
  }, 90_000);
});
