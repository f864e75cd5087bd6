import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { commissionSplit } from '../../src/domain/money';
import { balanceOf, payFromWallet } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { localActivityTypes } from '../support/history-events';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { ledgerBalance, merchantWithFreshWallet, openSession, ownTreasury, unbalancedPostings, waitForPayouts } from './support';

// Decisions §11 end to end on the run's anvil: a chain-verified session pays the merchant's net to
// its wallet and the commission to the treasury, with the deposit address's gas funded by the
// treasury; the lookup shows the payout, payment.settled is delivered once, and the ledger balances
// and agrees with the chain.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('payout of a chain-verified checkout session', () => {
  it('sends the net to the merchant and the commission to the treasury, once', async () => {
    const token = chain.tokens.polygon.USDC;
    const m = await merchantWithFreshWallet(ctx, 150);
    const treasuryTokensBefore = await balanceOf(chain, token, own.treasury);
    const treasuryEthBefore = await chain.publicClient.getBalance({ address: own.treasury });
    const id = await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks` });
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const deposit = await payFromWallet(chain, token, depositAddress, g);
    await waitForStatus(ctx, id, 'completed');

    const payouts = await waitForPayouts(ctx, id);
    const split = commissionSplit(g, 150);
    expect(payouts.map((p) => [p.kind, p.from, p.to, p.amount])).toEqual([
      ['gas', own.treasury, depositAddress, expect.any(BigInt)],
      ['merchant', depositAddress, m.wallet, split.merchant],
      ['commission', depositAddress, own.treasury, split.commission],
    ]);
    // One fee quote for the plan: all three rows carry terms from it, and the gas sent is exactly
    // what the two token transfers can cost at most (the fresh deposit address held none).
    const [gas, ...transfers] = payouts;
    expect(gas!.gasLimit).toBe(21_000n);
    expect(new Set(payouts.map((p) => p.maxFeePerGas)).size).toBe(1);
    expect(gas!.amount).toBe(transfers.reduce((sum, p) => sum + p.gasLimit! * p.maxFeePerGas!, 0n));
    expect(await balanceOf(chain, token, m.wallet)).toBe(split.merchant);
    expect((await balanceOf(chain, token, own.treasury)) - treasuryTokensBefore).toBe(split.commission);
    expect(await balanceOf(chain, token, depositAddress)).toBe(0n);
    for (const p of payouts) {
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: p.txHash as Address });
      expect(receipt.status).toBe('success');
    }

    // The lookup: the payout's hash and link, the inbound transfer apart.
    const merchantPayout = payouts.find((p) => p.kind === 'merchant')!;
    const tx = (await http('GET', `${ctx.baseUrl}/api/v1/transactions/${id}`, { headers: { authorization: `Bearer ${m.apiKey}` } })).json
      .transaction;
    expect(tx.transactionHash).toBe(merchantPayout.txHash);
    expect(tx.explorerUrl).toBe(`${ctx.config.providers.sandbox.publicUrl}/explorer/tx/${merchantPayout.txHash}`);
    expect(tx.depositTransactionHash).toBe(deposit.transactionHash);

    // Operators see the payouts, never the signed bytes.
    const admin = await ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${id}`, headers: adminHeaders });
    expect(
      admin.json().payouts.map((p: { kind: string; status: string; txHash: string; amount: string }) => [p.kind, p.status, p.txHash]),
    ).toEqual(payouts.map((p) => [p.kind, 'confirmed', p.txHash]));
    expect(admin.json().payouts[1].amount).toBe(tx.merchantSettlementAmount);
    expect(admin.json().transaction.depositTransactionHash).toBe(deposit.transactionHash);
    expect(admin.body).not.toContain('signed');

    // payment.settled, once, after payment.completed; its settlement fields name the payout.
    const settled = await eventually(
      async () => receiver.received.filter((d) => d.body.event === 'payment.settled'),
      (d) => d.length === 1,
      20_000,
      'payment.settled',
    );
    expect(settled[0]!.body).toMatchObject({
      sessionId: id,
      status: 'completed',
      transactionHash: merchantPayout.txHash,
      merchantSettlementAmount: tx.merchantSettlementAmount,
    });
    expect((await ctx.temporal.workflow.getHandle(id).result()).status).toBe('completed');
    expect(receiver.received.filter((d) => d.body.event === 'payment.settled')).toHaveLength(1);
    const completed = receiver.received.find((d) => d.body.event === 'payment.completed')!;
    expect(completed.body.transactionHash).toBeNull();

    // The three transfers went through one activity (patch payouts-in-one-activity), not one per step.
    const history = await ctx.temporal.workflow.getHandle(id).fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
    );
    const payoutSteps = scheduled.filter((a) => /payout/i.test(a.activityType?.name ?? ''));
    expect(payoutSteps.map((a) => a.activityType?.name)).toEqual(['sendPayouts']);
    // On the payouts' own task queue, where the worker sends PAYOUT_CONCURRENCY at a time. It is the
    // only activity task the run schedules: the database writes are local activities (patch
    // local-database-writes), and each delivery's first attempt, which the receiver answered, is made
    // by the local activity that wrote its event (issue 32).
    expect(payoutSteps.map((a) => a.taskQueue?.name)).toEqual([`${ctx.config.temporal.taskQueue}-payouts`]);
    expect(scheduled).toHaveLength(1);
    const deliveries = await ctx.db.sql`select id, status from webhook_deliveries where payment_id = ${id} order by id`;
    expect(deliveries.map((d) => d.status)).toEqual(deliveries.map(() => 'succeeded'));
    // Each local activity is a marker; since engine 2 a transition's write and its event are one
    // (activities/session-transitions.ts), and since issue 32 its deliveries' first attempts too.
    // Since issue 32 the run no longer marks its row visible (its creation did), and the credit that
    // covers G completes the session in the same local activity, and payment.settled is written by
    // the payout activity that saw the last receipt: one local activity in all.
    expect(localActivityTypes(history.events)).toEqual(['creditSession']);
    const attempts = await ctx.db
      .sql`select a.delivery_id from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.payment_id = ${id}`;
    expect(attempts).toHaveLength(deliveries.length);
    // One timer for the session's expiry, left to lapse, where each wake used to start and cancel
    // one (patch deadline-timers).
    expect((history.events ?? []).filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
    expect((history.events ?? []).filter((e) => e.timerCanceledEventAttributes)).toEqual([]);
    // Started at the current engine version: no patch markers, and so no TemporalChangeVersion upserts.
    expect((history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toEqual([]);

    // The ledger: balanced postings, and balances that agree with the chain.
    expect(await unbalancedPostings(ctx)).toEqual([]);
    expect(await ledgerBalance(ctx, `deposit:${depositAddress}`, 'USDC')).toBe(0n);
    expect(await ledgerBalance(ctx, `merchant_payable:${m.id}`, 'USDC')).toBe(0n);
    expect(await ledgerBalance(ctx, 'commission_revenue', 'USDC')).toBe(-split.commission);
    expect(await ledgerBalance(ctx, `treasury:${own.treasury}`, 'USDC')).toBe(split.commission);
    expect(await ledgerBalance(ctx, `deposit:${depositAddress}`, 'native')).toBe(
      await chain.publicClient.getBalance({ address: depositAddress }),
    );
    const treasuryEthAfter = await chain.publicClient.getBalance({ address: own.treasury });
    expect(await ledgerBalance(ctx, `treasury:${own.treasury}`, 'native')).toBe(treasuryEthAfter - treasuryEthBefore);
    const fees = payouts.reduce((sum, p) => sum + p.feeWei!, 0n);
    expect(await ledgerBalance(ctx, 'gas_expense', 'native')).toBe(fees);
  }, 120_000);
});
