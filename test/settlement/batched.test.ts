import { erc20Abi, type Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { commissionSplit } from '../../src/domain/money';
import { reconcile } from '../../src/payments/reconciliation';
import { listMerchantPayouts } from '../../src/db/queries/merchant-money';
import type { SettlementRunOutcome } from '../../src/workflows/settlement/workflow';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';
import { devTreasuryAddress } from '../../tools/dev/dev-sweepers';
import { balanceOf, payFromWallet, randomAddress, usePrivateChain, type TestChain } from '../support/chain';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { exceptionsOf, openSession, pressPay, sessionRow, waitForStatus } from '../proof/support';
import { replayRuns } from '../temporal/histories';
import { startReceiver } from '../support/receiver';
import { orderRow, waitForOrder, waitForOrderFeeSwept } from '../proof/order-support';

// Batched settlement (docs/settlement.md) end to end, on a private anvil so that every transaction
// the treasury sends can be counted: payments of two merchants complete into their balances, one
// sweep moves every deposit to the treasury through the sweeper (no native coin ever sent to a
// deposit), then one payout per merchant pays exactly their shares; the commission stays in the
// treasury, each payment is settled once, and the ledger equals the chain.
// Webhook retries a second apart: a refused payment.settled is delivered again within the test.
const overrides: Record<string, string> = { PAYOUT_INTERVAL_SECONDS: '1', WEBHOOK_RETRY_BASE_SECONDS: '1' };
let chain: TestChain;
usePrivateChain(overrides, 1, (started) => (chain = started));
const ctx = useTestApp(overrides, { listen: true, sandbox: true, worker: true });

async function merchantWithWallet(wallet: Address) {
  return createApprovedMerchant(ctx.app, {
    name: 'Batch Shop',
    commissionBps: 100,
    wallets: [{ asset: 'USDC', network: 'polygon', address: wallet }],
  });
}

/** A session of `apiKey`'s merchant, paid in full from a wallet on polygon and completed: its id and gross. */
async function paidSession(apiKey: string, amount: number): Promise<{ id: string; gross: bigint }> {
  const id = await openSession(ctx, apiKey, { amount });
  const gross = await pressPay(ctx, id);
  await payFromWallet(chain, chain.tokens.polygon.USDC, (await sessionRow(ctx, id)).depositAddress, gross);
  await waitForStatus(ctx, id, 'completed');
  return { id, gross };
}

async function settlementRows(paymentIds: string[]) {
  return ctx.db.sql<{ payment_id: string; payout_id: string; kind: string; status: string; amount: string; tx_hash: string }[]>`
    select i.payment_id, p.id as payout_id, p.kind, p.status, i.amount, p.tx_hash
      from payout_items i join payouts p on p.id = i.payout_id
     where i.payment_id in ${ctx.db.sql(paymentIds)}`;
}

describe('batched settlement', () => {
  it('sweeps many deposits in one transaction and pays each merchant once, from the treasury, without gas at any deposit', async () => {
    const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
    // Held while the payments complete, so that one run finds them all.
    await schedule.pause();
    const wallets = [randomAddress(), randomAddress()];
    const merchants = [await merchantWithWallet(wallets[0]!), await merchantWithWallet(wallets[1]!)];
    const owners = [0, 0, 0, 1, 1];
    const payments: { id: string; merchant: number; gross: bigint; deposit: Address }[] = [];
    for (const merchant of owners) {
      const id = await openSession(ctx, merchants[merchant]!.apiKey, { amount: 10 + payments.length });
      const gross = await pressPay(ctx, id);
      const { depositAddress } = await sessionRow(ctx, id);
      payments.push({ id, merchant, gross, deposit: depositAddress });
    }
    // A deposit address is the sweeper's forwarder of the payment's index: no code until swept.
    for (const p of payments) expect(await chain.publicClient.getCode({ address: p.deposit })).toBeUndefined();
    const treasury = devTreasuryAddress();
    const usdc = chain.tokens.polygon.USDC;
    const treasuryBefore = await balanceOf(chain, usdc, treasury);
    const nonceBefore = await chain.publicClient.getTransactionCount({ address: treasury });
    for (const p of payments) await payFromWallet(chain, usdc, p.deposit, p.gross);
    for (const p of payments) await waitForStatus(ctx, p.id, 'completed');
    const ids = payments.map((p) => p.id);
    // Completed: the shares are the merchants' balances; nothing moved on chain yet.
    expect(await settlementRows(ids)).toEqual([]);

    await schedule.unpause();
    await eventually(
      async () => (await settlementRows(ids)).filter((r) => r.kind === 'merchant' && r.status === 'confirmed').length,
      (n) => n === payments.length,
      30_000,
      'every payment paid out',
    );
    await schedule.pause();

    const rows = await settlementRows(ids);
    const sweeps = new Set(rows.filter((r) => r.kind === 'sweep').map((r) => r.payout_id));
    const payouts = new Set(rows.filter((r) => r.kind === 'merchant').map((r) => r.payout_id));
    // One sweep for the five deposits, one payout per merchant: three transactions for five payments.
    expect(sweeps.size).toBe(1);
    expect(payouts.size).toBe(2);
    expect(rows.filter((r) => r.kind === 'sweep').map((r) => BigInt(r.amount))).toEqual(
      expect.arrayContaining(payments.map((p) => p.gross)),
    );
    expect(await chain.publicClient.getTransactionCount({ address: treasury })).toBe(nonceBefore + 3);
    // No gas top-up, no commission transfer: the only payouts of these payments are the batch's.
    const perPayment = await ctx.db.sql`select kind from payouts where payment_id in ${ctx.db.sql(ids)}`;
    expect(perPayment).toEqual([]);

    // Each merchant got exactly the shares of their payments; the commission stayed in the treasury.
    const share = (p: (typeof payments)[number]) => commissionSplit(p.gross, 100).merchant;
    for (const [i, wallet] of wallets.entries()) {
      const owed = payments.filter((p) => p.merchant === i).reduce((sum, p) => sum + share(p), 0n);
      expect(await balanceOf(chain, usdc, wallet)).toBe(owed);
    }
    const commission = payments.reduce((sum, p) => sum + commissionSplit(p.gross, 100).commission, 0n);
    expect((await balanceOf(chain, usdc, treasury)) - treasuryBefore).toBe(commission);
    // Every deposit is empty, of the token and of native coin (none was ever sent there).
    for (const p of payments) {
      expect(await chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [p.deposit] })).toBe(
        0n,
      );
      expect(await chain.publicClient.getBalance({ address: p.deposit })).toBe(0n);
    }

    // Each payment's lookup names its merchant's payout, and payment.settled was written once each.
    for (const p of payments) {
      const payout = rows.find((r) => r.payment_id === p.id && r.kind === 'merchant')!;
      const res = await http('GET', `${ctx.baseUrl}/api/v1/transactions/${p.id}`, {
        headers: { authorization: `Bearer ${merchants[p.merchant]!.apiKey}` },
      });
      expect(res.status).toBe(200);
      expect(res.json.transaction).toMatchObject({ transactionHash: payout.tx_hash, payoutId: payout.payout_id });
    }
    const settled = () =>
      ctx.db.sql`select payment_id from events where type = 'payment.settled' and payment_id in ${ctx.db.sql(ids)}`.then((r) =>
        r.map((e) => e.payment_id as string).sort(),
      );
    await eventually(settled, (s) => s.length === ids.length, 10_000, 'payment.settled for every payment');
    expect(await settled()).toEqual([...ids].sort());

    // The dashboard's payout list shows each merchant its batch, linked to one of its payments.
    for (const [i, merchant] of merchants.entries()) {
      const listed = await listMerchantPayouts(ctx.db.db, merchant.id, { limit: 10 });
      const batch = rows.find((r) => r.kind === 'merchant' && payments.find((p) => p.id === r.payment_id)!.merchant === i)!;
      expect(listed.map((l) => [l.id, l.status])).toEqual([[batch.payout_id, 'confirmed']]);
      expect(payments.filter((p) => p.merchant === i).map((p) => p.id)).toContain(listed[0]!.paymentId);
    }

    // The ledger equals the chain.
    expect(await reconcile(ctx.db.db, ctx.config.chains, treasury)).toEqual([]);

    // The runs' histories: the one that swept and paid, and one with nothing to do.
    const runs = new Map<string, SettlementRunOutcome>();
    for (const action of (await schedule.describe()).info.recentActions) {
      const workflowId = action.action.workflow.workflowId;
      runs.set(workflowId, await ctx.temporal.workflow.getHandle(workflowId).result());
    }
    const paid = [...runs].find(([, r]) => r.sweeps === 1 && r.payouts === 2)?.[0];
    expect(paid).toBeDefined();
    const idle = `settlement-idle-${Date.now()}`;
    const nothing = await ctx.temporal.workflow.execute('settlementRun', {
      workflowId: idle,
      taskQueue: ctx.config.temporal.taskQueue,
      args: [{ networks: ctx.config.chains.networks.map((n) => n.network) }],
    });
    expect(nothing).toEqual({ sweeps: 0, payouts: 0, failed: 0 });
    await replayRuns(ctx.temporal, 'settlement-run', { 'swept-and-paid': paid!, idle });
  }, 120_000);

  it('refunds a completed payment from its merchant’s balance only: 409 beyond it, concurrent refunds never overdraw', async () => {
    const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
    await schedule.pause();
    const m = await merchantWithWallet(randomAddress());
    const pay = async (amount: number) => {
      const { id, gross } = await paidSession(m.apiKey, amount);
      return { id, share: commissionSplit(gross, 100).merchant };
    };
    const refund = (paymentId: string, amount: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/admin/v1/payments/${paymentId}/refunds`,
        headers: adminHeaders,
        payload: { amount, address: randomAddress() },
      });
    const balance = async (account: 'available' | 'outgoing') =>
      -BigInt(
        (
          await ctx.db.sql`select coalesce(sum(amount), 0)::text as s from ledger_entries where account = ${`merchant:${m.id}:${account}`}`
        )[0]!.s as string,
      );
    const available = () => balance('available');
    // Nothing left to pay, and every payout confirmed.
    const settledUp = async () => (await balance('available')) === 0n && (await balance('outgoing')) === 0n;

    // Paid out: nothing is left to refund from, although the treasury holds other money.
    const first = await pay(30);
    await schedule.unpause();
    await eventually(settledUp, (done) => done, 30_000, 'the first payment paid out');
    await eventually(
      () =>
        ctx.db
          .sql`select 1 from payout_items i join payouts p on p.id = i.payout_id where i.payment_id = ${first.id} and p.kind = 'merchant' and p.status = 'confirmed'`,
      (r) => r.length === 1,
      30_000,
      'the payout confirmed',
    );
    await schedule.pause();
    const refused = await refund(first.id, '5');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      ok: false,
      error: 'InsufficientBalance',
      message: 'The balance available for refunds is 0.00 USDC; the refund needs 5.00 USDC. Top up your balance or wait for more payments.',
    });
    expect(await ctx.db.sql`select 1 from payment_refunds where payment_id = ${first.id}`).toEqual([]);

    // A second payment, held in the balance (no run): two refunds asked at once, each more than half of it.
    const second = await pay(20);
    expect(await available()).toBe(second.share);
    const part = ((second.share * 6n) / 10n / 10_000n) * 10_000n;
    const amount = (Number(part) / 1e6).toFixed(2);
    const answers = await Promise.all([refund(second.id, amount), refund(first.id, amount)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    const made = answers.find((a) => a.statusCode === 201)!.json().refund as { id: string };
    expect(await available()).toBe(second.share - part);
    // The treasury pays it once the next run has swept the payment's money in.
    await schedule.unpause();
    expect(await ctx.temporal.workflow.getHandle(made.id).result()).toBe('refunded');
    // What is left of the balance is paid out.
    await eventually(settledUp, (done) => done, 30_000, 'the rest paid out');
    await schedule.pause();
    // Nothing the merchant was not owed left the treasury, and the ledger equals the chain.
    expect(await reconcile(ctx.db.db, ctx.config.chains, devTreasuryAddress())).toEqual([]);
  }, 120_000);

  it('sends an exception’s money back from its deposit address through the sweeper, the treasury paying the gas', async () => {
    const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
    await schedule.unpause();
    const m = await merchantWithWallet(randomAddress());
    const usdc = chain.tokens.polygon.USDC;
    const id = await openSession(ctx, m.apiKey, { amount: 12 });
    await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    // Canceled, then paid: late money, held at the deposit for the customer.
    expect((await http('POST', `${ctx.baseUrl}/pay/${id}/cancel`)).status).toBe(303);
    await waitForStatus(ctx, id, 'canceled');
    await payFromWallet(chain, usdc, depositAddress, 2_000_000n);
    const [late] = await eventually(
      () => exceptionsOf(ctx, id),
      (list) => list.length === 1,
      20_000,
      'the late exception',
    );
    expect(late).toMatchObject({ kind: 'late', amount: 2_000_000n, status: 'open' });
    const customer = randomAddress();
    const refund = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/exceptions/${late!.id}/refund`,
      headers: adminHeaders,
      payload: { address: customer },
    });
    expect(refund.json()).toMatchObject({ ok: true });
    expect(refund.statusCode).toBe(200);
    await eventually(
      async () => (await exceptionsOf(ctx, id))[0]!.status,
      (status) => status === 'refunded',
      30_000,
      'the exception refunded',
    );
    expect(await balanceOf(chain, usdc, customer)).toBe(2_000_000n);
    const [row] = await ctx.db.sql`select from_address, to_address from payouts where exception_id = ${late!.id}`;
    expect(row).toEqual({ from_address: devTreasuryAddress(), to_address: chain.sweepers.polygon });
    // The deposit ends empty, and never held gas.
    expect(await chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [depositAddress] })).toBe(
      0n,
    );
    expect(await chain.publicClient.getBalance({ address: depositAddress })).toBe(0n);
    await schedule.pause();
    expect(await reconcile(ctx.db.db, ctx.config.chains, devTreasuryAddress())).toEqual([]);
  }, 120_000);

  it('pays a simple order’s customer by one call of the sweeper, then sweeps its network fee', async () => {
    const wallet = randomAddress();
    const usdc = chain.tokens.polygon.USDC;
    const opened = await http('POST', `${ctx.baseUrl}/api/checkout`, {
      body: {
        fiat_amount: 25,
        fiat_currency: 'USD',
        customer: { wallet_address: wallet, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
      },
    });
    expect(opened.status).toBe(201);
    const code = opened.json.data.transaction_code as string;
    const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
      body: { reference: code, outcome: 'succeeded' },
    });
    expect(paid.status).toBe(200);
    await waitForOrder(ctx, code, 'settled');
    const { received, depositAddress } = await orderRow(ctx, code);
    const fee = 50_000n;
    await eventually(
      () => balanceOf(chain, usdc, wallet),
      (b) => b === received! - fee,
      30_000,
      'the customer paid',
    );
    const rows = await eventually(
      () => ctx.db.sql`select kind, status, from_address, to_address from payouts where payment_id = ${code}`,
      (r) => r.length === 1 && r[0]!.status === 'confirmed',
      30_000,
      'the payout confirmed',
    );
    expect(rows[0]).toMatchObject({ kind: 'customer', from_address: devTreasuryAddress(), to_address: chain.sweepers.polygon });
    // The network fee, the treasury's, is swept by the next run: the deposit ends empty, never any native coin there.
    await ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue)).unpause();
    await waitForOrderFeeSwept(ctx, code);
    expect(await balanceOf(chain, usdc, depositAddress)).toBe(0n);
    expect(await chain.publicClient.getBalance({ address: depositAddress })).toBe(0n);
    expect(await reconcile(ctx.db.db, ctx.config.chains, devTreasuryAddress())).toEqual([]);
  }, 120_000);

  it('hands a payment.settled the merchant’s endpoint refused to a delivery run of its own, and the settlement run ends', async () => {
    const receiver = await startReceiver((_delivery, index) => ({ status: index === 0 ? 500 : 200 }));
    try {
      const m = await merchantWithWallet(randomAddress());
      const endpoint = await ctx.app.inject({
        method: 'POST',
        url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
        headers: adminHeaders,
        payload: { url: `${receiver.url}/hooks`, eventTypes: ['payment.settled'] },
      });
      expect(endpoint.statusCode).toBe(201);
      const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
      await schedule.pause();
      const { id } = await paidSession(m.apiKey, 7);
      await schedule.unpause();
      const [delivery] = await eventually(
        () => ctx.db.sql`select d.id, d.status from webhook_deliveries d join events e on e.id = d.event_id
                           where e.payment_id = ${id} and e.type = 'payment.settled'`,
        (rows) => rows.length === 1 && rows[0]!.status === 'succeeded',
        60_000,
        'payment.settled delivered on its second attempt',
      );
      await schedule.pause();
      // The second attempt came from the delivery's own run; the settlement run that paid had ended.
      const handedOff = ctx.temporal.workflow.getHandle(`${delivery!.id as string}-settled`);
      expect(await handedOff.result()).toBe('succeeded');
      await replayRuns(ctx.temporal, 'webhook-delivery', { 'settled-after-first-attempt': `${delivery!.id as string}-settled` });
      const parent = (await handedOff.describe()).parentExecution;
      expect(parent).toBeDefined();
      expect((await ctx.temporal.workflow.getHandle(parent!.workflowId!, parent!.runId ?? undefined).describe()).status.name).toBe(
        'COMPLETED',
      );
      expect(receiver.received.filter((d) => JSON.stringify(d.body).includes(id))).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('leaves a deposit short of its amount on chain out of the sweep, and sweeps the others', async () => {
    const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
    await schedule.pause();
    const m = await merchantWithWallet(randomAddress());
    // The books say a payment completed at a deposit that holds nothing (as after a reorg took its transfer).
    const ghost = await openSession(ctx, m.apiKey, { amount: 9 });
    await pressPay(ctx, ghost);
    const { depositAddress: empty } = await sessionRow(ctx, ghost);
    await ctx.db.sql`insert into ledger_entries (posting_id, line, account, asset, network, amount, payment_id) values
      (${`completion:${ghost}`}, 1, ${`deposit:${empty}`}, 'USDC', 'polygon', 5000000, ${ghost}),
      (${`completion:${ghost}`}, 2, ${`merchant:${m.id}:pending`}, 'USDC', 'polygon', -5000000, ${ghost})`;
    const { id } = await paidSession(m.apiKey, 8);
    await schedule.unpause();
    const swept = () =>
      ctx.db.sql`select i.payment_id, p.status from payout_items i join payouts p on p.id = i.payout_id
                  where p.kind = 'sweep' and i.payment_id in ${ctx.db.sql([id, ghost])}`;
    await eventually(swept, (rows) => rows.some((r) => r.payment_id === id && r.status === 'confirmed'), 30_000, 'the real deposit swept');
    await schedule.pause();
    expect((await swept()).map((r) => r.payment_id)).toEqual([id]);
  }, 120_000);

  it('stops planning payouts of a payment whose payouts failed three times, and pays the others', async () => {
    const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
    await schedule.pause();
    const m = await merchantWithWallet(randomAddress());
    const usdc = chain.tokens.polygon.USDC;
    const [refused, fine] = [(await paidSession(m.apiKey, 6)).id, (await paidSession(m.apiKey, 7)).id];
    // Three payouts of the first already failed for good (as to a wallet the token blocks).
    for (const n of [1, 2, 3]) {
      const id = `po_FAILED${n}${refused.slice(3, 19)}`;
      await ctx.db
        .sql`insert into payouts (id, payment_id, kind, network, asset, token, from_address, to_address, amount, status, failure_reason)
        values (${id}, ${id}, 'merchant', 'polygon', 'USDC', ${usdc}, ${devTreasuryAddress()}, ${randomAddress()}, 1, 'failed', 'the token refused the transfer')`;
      await ctx.db.sql`insert into payout_items (payout_id, payment_id, amount) values (${id}, ${refused}, 1)`;
    }
    const outcome = await ctx.temporal.workflow.execute('settlementRun', {
      workflowId: `settlement-bound-${refused}`,
      taskQueue: ctx.config.temporal.taskQueue,
      args: [{ networks: ['polygon'] }],
    });
    expect(outcome).toMatchObject({ sweeps: 1, payouts: 1, failed: 0 });
    const live = await ctx.db.sql`select i.payment_id from payout_items i join payouts p on p.id = i.payout_id
      where p.kind = 'merchant' and p.status = 'confirmed' and i.payment_id in ${ctx.db.sql([refused, fine])}`;
    expect(live.map((r) => r.payment_id)).toEqual([fine]);
  }, 120_000);
});
