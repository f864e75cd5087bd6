import type { ChildProcess } from 'node:child_process';
import { encodeAbiParameters, keccak256, numberToHex, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commissionSplit } from '../../src/domain/money';
import { balanceOf, payFromWallet } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { envFor, killHard, startEntryPoint } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { startRpcTrapProxy } from '../support/rpc-trap-proxy';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';
import { ledgerBalance, merchantWithFreshWallet, openSession, ownTreasury, payoutsOf, unbalancedPostings, waitForPayouts } from './support';

// Payout failures, end to end on the run's anvil: a worker process (worker.ts)
// reaches the chain through a JSON-RPC proxy. A settlement run's payout the treasury cannot fund (its
// tokens taken away as the payout is estimated) is refused, given up after the bound (not retried
// forever), failed with its reason in words, listed for operators and counted by the metric, logged
// once at error level, and its amount is the merchant's balance again; once the treasury holds the
// token again, the operator's retry has the next run pay it exactly once. An RPC outage, by contrast,
// is waited out: the payout completes with no failed state.
// The refusal window, shorter than the minute of production so the bound is reached in ~15 s: the
// worker reads it from PAYOUT_REFUSAL_WINDOW_SECONDS like any deployment.
const WINDOW_SECONDS = 15;
const own = ownTreasury({ PAYOUT_INTERVAL_SECONDS: '1' });
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true });
const chain = own.chain;
const token = chain.tokens.polygon.USDC;
let proxy: Awaited<ReturnType<typeof startRpcTrapProxy>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let worker: { child: ChildProcess; output: () => string };
beforeAll(async () => {
  proxy = await startRpcTrapProxy(chain.rpcUrl);
  receiver = await startReceiver();
  const env = envFor(ctx.config);
  for (const key of Object.keys(env)) if (/^CHAIN_[A-Z]+_RPC_URL$/.test(key)) env[key] = proxy.url;
  env.PAYOUT_REFUSAL_WINDOW_SECONDS = String(WINDOW_SECONDS);
  worker = await startEntryPoint('worker.ts', env, /worker: polling/);
});
afterAll(async () => {
  await killHard(worker.child);
  await proxy.close();
  await receiver.close();
});

// The token's balances sit in its `balanceOf` mapping (storage slot 3, contracts/TestToken.sol). The
// test moves the treasury's tokens aside and back by writing that slot: no transfer log records it.
const balanceSlot = (owner: Address) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 3n]));
async function setTokenBalance(owner: Address, amount: bigint) {
  await chain.control.setStorageAt({ address: token, index: balanceSlot(owner), value: numberToHex(amount, { size: 32 }) });
  expect(await balanceOf(chain, token, owner)).toBe(amount);
}

/**
 * A completed session of a new merchant whose payout's first gas estimate (the transfer to their
 * wallet, from the treasury) springs `onEstimate` before it is answered (the call itself is dropped:
 * a transient failure the attempt retries). Returns once it has sprung, with the settlement run then.
 */
async function paidSession(onEstimate: (merchantId: string) => Promise<void>) {
  const m = await merchantWithFreshWallet(ctx, 150);
  const id = await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks/${Math.random()}` });
  const g = await pressPay(ctx, id);
  const { depositAddress } = await sessionRow(ctx, id);
  proxy.arm({
    method: 'eth_estimateGas',
    matches: (params) => params.includes(m.wallet.slice(2).toLowerCase()),
    when: 'before',
    spring: () => onEstimate(m.id),
  });
  await payFromWallet(chain, token, depositAddress, g);
  await waitForStatus(ctx, id, 'completed', 60_000);
  await eventually(
    async () => proxy.armed(),
    (armed) => !armed,
    60_000,
    'the payout to be estimated',
  );
  const schedule = ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));
  const run = (await schedule.describe()).info.runningActions[0]!.workflow.workflowId;
  return { id, g, m, deposit: depositAddress, run };
}

const settledEvents = async (id: string) =>
  (await ctx.db.sql`select count(*)::int as n from events where payment_id = ${id} and type = 'payment.settled'`)[0]!.n as number;
const workerLines = () =>
  worker
    .output()
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const failureLines = () => workerLines().filter((l) => l.msg === 'payout failed');

async function pendingSendPayouts(workflowId: string) {
  const { raw } = await ctx.temporal.workflow.getHandle(workflowId).describe();
  return (raw.pendingActivities ?? []).filter((a) => a.activityType?.name === 'sendPayouts');
}
const merchantPayouts = (id: string) => payoutsOf(ctx, id).then((ps) => ps.filter((p) => p.kind === 'merchant'));
const available = async (merchantId: string) => -(await ledgerBalance(ctx, `merchant:${merchantId}:available`, 'USDC'));

describe('a payout the chain refuses', () => {
  it('fails after the bound with its reason, is shown to operators, and is paid once after a retry', async () => {
    let held = 0n;
    const { id, g, m, run } = await paidSession(async (merchantId) => {
      // No second payout while this one is refused: the merchant's schedule keeps the balance for now.
      const [manual] = await ctx.db.sql`update merchants set payout_schedule = 'manual' where id = ${merchantId} returning id`;
      if (!manual) throw new Error(`no merchant ${merchantId} to put on a manual schedule`);
      held = await balanceOf(chain, token, own.treasury);
      await setTokenBalance(own.treasury, 0n);
    }).catch((err: unknown) => {
      throw err;
    });
    expect(proxy.sprung()).toEqual(['eth_estimateGas:before']);
    const split = commissionSplit(g, 150);

    // Given up, not retried forever: the payout is a failed row with the reason in words, and its
    // amount is the merchant's available balance again.
    const { payouts: failed } = await eventually(
      async () => ({ payouts: await merchantPayouts(id), pending: (await pendingSendPayouts(run)).length }),
      ({ payouts: ps, pending }) => ps.length === 1 && ps[0]!.status === 'failed' && pending === 0,
      150_000,
      'the failed payout, and its activity ended',
    );
    expect(failed.map((p) => [p.kind, p.status, p.amount, p.txHash])).toEqual([['merchant', 'failed', split.merchant, null]]);
    const [row] = await ctx.db.sql`select failure_reason from payouts where id = ${failed[0]!.id}`;
    expect(row!.failure_reason).toBe('the transfer reverts: the sender holds less of the token than the transfer sends');
    await eventually(
      () => available(m.id),
      (a) => a === split.merchant,
      30_000,
      'the amount back in the balance',
    );

    // After the bound: one activity, at least 5 attempts over at least the window, ending non-retryable.
    const handle = ctx.temporal.workflow.getHandle(run);
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendPayouts');
    const payoutScheduled = scheduled.at(-1)!;
    const started = events.find(
      (e) =>
        e.activityTaskStartedEventAttributes &&
        Number(e.activityTaskStartedEventAttributes.scheduledEventId) === Number(payoutScheduled.eventId),
    )!;
    const failure = events.find((e) => e.activityTaskFailedEventAttributes)!;
    expect(started.activityTaskStartedEventAttributes!.attempt).toBeGreaterThanOrEqual(5);
    expect(failure.activityTaskFailedEventAttributes!.failure?.applicationFailureInfo).toMatchObject({
      type: 'PayoutFailed',
      nonRetryable: true,
    });
    const ms = (t: typeof failure.eventTime) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
    expect(ms(failure.eventTime) - ms(payoutScheduled.eventTime)).toBeGreaterThanOrEqual(WINDOW_SECONDS * 1000);
    expect(await settledEvents(id)).toBe(0);
    expect(await balanceOf(chain, token, m.wallet)).toBe(0n);

    // Operators see it: the payment view, the failed queue across payments, the metric.
    const view = await ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${id}`, headers: adminHeaders });
    expect(
      view
        .json()
        .payouts.filter((p: { kind: string }) => p.kind === 'merchant')
        .map((p: { kind: string; status: string; failureReason: string }) => [p.kind, p.status, p.failureReason]),
    ).toEqual([['merchant', 'failed', row!.failure_reason]]);
    const queue = await ctx.app.inject({ method: 'GET', url: '/admin/v1/payouts?status=failed', headers: adminHeaders });
    expect(queue.statusCode).toBe(200);
    expect(queue.json().payouts.map((p: { id: string }) => p.id)).toEqual([failed[0]!.id]);
    const metrics = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('svc_payouts_failed{network="polygon",kind="merchant"} 1');

    // One error line for the failure, naming the payout, the network and the reason.
    await eventually(
      async () => failureLines().length,
      (n) => n > 0,
      10_000,
      'the error line',
    );
    const lines = failureLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, payoutId: failed[0]!.id, network: 'polygon', reason: row!.failure_reason });
    // Never a key or signed bytes (64 hex digits and more); addresses (40) are fine.
    expect(JSON.stringify(lines[0])).not.toMatch(/0x[0-9a-f]{64}/i);

    // The operator puts the money back and retries: the next run pays it once, payment.settled once.
    await setTokenBalance(own.treasury, held);
    const retried = await ctx.app.inject({ method: 'POST', url: `/admin/v1/payouts/${failed[0]!.id}/retry`, headers: adminHeaders });
    expect(retried.statusCode).toBe(200);
    expect(retried.json().payout).toMatchObject({ id: failed[0]!.id, status: 'failed' });
    const paid = await eventually(
      () => merchantPayouts(id),
      (ps) => ps.some((p) => p.status === 'confirmed'),
      60_000,
      'the payout paid after the retry',
    );
    expect(paid.map((p) => [p.status, p.amount])).toEqual([
      ['failed', split.merchant],
      ['confirmed', split.merchant],
    ]);
    expect(await balanceOf(chain, token, m.wallet)).toBe(split.merchant);
    await eventually(
      () => settledEvents(id),
      (n) => n === 1,
      30_000,
      'payment.settled',
    );
    await eventually(
      async () => receiver.received.filter((d) => d.body.event === 'payment.settled' && d.body.sessionId === id).length,
      (n) => n === 1,
      30_000,
      'payment.settled delivered once',
    );
    expect(await available(m.id)).toBe(0n);
    expect(await unbalancedPostings(ctx)).toEqual([]);

    // Nothing waits any more; a retry of a payout that does not wait is a conflict, an unknown one not found.
    expect((await ctx.app.inject({ method: 'GET', url: '/admin/v1/payouts?status=failed', headers: adminHeaders })).json().payouts).toEqual(
      [],
    );
    expect((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body).not.toMatch(/^svc_payouts_failed\{/m);
    const again = await ctx.app.inject({ method: 'POST', url: `/admin/v1/payouts/${failed[0]!.id}/retry`, headers: adminHeaders });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ ok: false, error: 'Conflict' });
    const unknown = await ctx.app.inject({ method: 'POST', url: `/admin/v1/payouts/po_${'x'.repeat(24)}/retry`, headers: adminHeaders });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ ok: false, error: 'NotFound' });
    expect((await ctx.app.inject({ method: 'POST', url: `/admin/v1/payouts/${failed[0]!.id}/retry` })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: '/admin/v1/payouts?status=lost', headers: adminHeaders })).json()).toMatchObject({
      ok: false,
      error: 'ValidationError',
    });
  }, 300_000);
});

describe('an RPC outage during a payout', () => {
  it('is waited out: the payout completes with no failed state', async () => {
    const failuresBefore = failureLines().length;
    const { id, g, m, run } = await paidSession(async () => proxy.setDown(true));
    // Down for seven attempts over more than the window (1 + 2 + 4 + 8 + 10 + 10 s of back-off),
    // past both halves of the refusal bound: each failure is transient, and none counts towards it.
    await eventually(
      async () => (await pendingSendPayouts(run))[0]?.attempt ?? 0,
      (attempt) => attempt >= 7,
      120_000,
      'seven attempts during the outage',
    );
    expect(proxy.sprung()).toEqual(['eth_estimateGas:before', 'eth_estimateGas:before']);
    expect((await merchantPayouts(id)).filter((p) => p.status === 'failed')).toEqual([]);
    proxy.setDown(false);

    const payouts = await waitForPayouts(ctx, id, 90_000);
    expect(payouts.map((p) => [p.kind, p.status])).toEqual([
      ['sweep', 'confirmed'],
      ['merchant', 'confirmed'],
    ]);
    expect(await balanceOf(chain, token, m.wallet)).toBe(commissionSplit(g, 150).merchant);
    await eventually(
      () => settledEvents(id),
      (n) => n === 1,
      30_000,
      'payment.settled',
    );
    expect(failureLines()).toHaveLength(failuresBefore);
  }, 300_000);
});
