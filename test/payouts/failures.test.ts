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
import { merchantWithFreshWallet, openSession, ownTreasury, payoutsOf, unbalancedPostings, waitForPayouts } from './support';

// Decisions §14 "Payout failures", end to end on the run's anvil: a worker process (worker.ts)
// reaches the chain through a JSON-RPC proxy. A payout whose deposit address no longer holds the
// token is refused, given up after the bound (not retried forever), failed with its reason, listed
// for operators and counted by the metric, logged once at error level, and the run waits; once the
// address holds the token again, the operator's retry sends it exactly once. An RPC outage, by
// contrast, is waited out: the payout completes with no failed state.
// The refusal window, shorter than the minute of production so the bound is reached in ~15 s: the
// worker reads it from PAYOUT_REFUSAL_WINDOW_SECONDS like any deployment.
const WINDOW_SECONDS = 15;
const own = ownTreasury();
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
// test moves the deposit's tokens aside and back by writing that slot: a Transfer back into the
// address would be new money arriving (a duplicate exception), not the same money returned.
const balanceSlot = (owner: Address) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 3n]));
async function setTokenBalance(owner: Address, amount: bigint) {
  await chain.control.setStorageAt({ address: token, index: balanceSlot(owner), value: numberToHex(amount, { size: 32 }) });
  expect(await balanceOf(chain, token, owner)).toBe(amount);
}

/** A completed session whose payout starts; `armed` runs on the payout's first balance check of its deposit address, before it is answered. */
async function paidSession(onFirstCheck: (deposit: Address, g: bigint) => Promise<void>) {
  const m = await merchantWithFreshWallet(ctx, 150);
  const id = await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks/${Math.random()}` });
  const g = await pressPay(ctx, id);
  const { depositAddress } = await sessionRow(ctx, id);
  // balanceOf(deposit): the planner's check, the first call of the payout that names the address.
  proxy.arm({
    method: 'eth_call',
    matches: (params) => params.includes(`70a08231000000000000000000000000${depositAddress.slice(2).toLowerCase()}`),
    when: 'before',
    spring: () => onFirstCheck(depositAddress, g),
  });
  await payFromWallet(chain, token, depositAddress, g);
  await waitForStatus(ctx, id, 'completed', 60_000);
  await eventually(
    async () => proxy.armed(),
    (armed) => !armed,
    60_000,
    'the payout to check the deposit address',
  );
  return { id, g, m, deposit: depositAddress };
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

async function pendingSendPayouts(id: string) {
  const { raw } = await ctx.temporal.workflow.getHandle(id).describe();
  return (raw.pendingActivities ?? []).filter((a) => a.activityType?.name === 'sendPayouts');
}

describe('a payout the chain refuses', () => {
  it('fails after the bound with its reason, is shown to operators, and is sent once after a retry', async () => {
    const { id, g, m, deposit } = await paidSession(async (address) => setTokenBalance(address, 0n));
    expect(proxy.sprung()).toEqual(['eth_call:before']);
    const split = commissionSplit(g, 150);

    // Given up, not retried forever: the transfers are failed rows with the planner's reason. The
    // activity fails the rows before it fails itself: the wait is for both, rows and history.
    const { payouts: failed } = await eventually(
      async () => ({ payouts: await payoutsOf(ctx, id), pending: (await pendingSendPayouts(id)).length }),
      ({ payouts: ps, pending }) => ps.length > 0 && ps.every((p) => p.status === 'failed') && pending === 0,
      150_000,
      'the failed payouts, and their activity ended',
    );
    expect(failed.map((p) => [p.kind, p.status, p.amount, p.txHash])).toEqual([
      ['merchant', 'failed', split.merchant, null],
      ['commission', 'failed', split.commission, null],
    ]);
    const [row] = await ctx.db.sql`select failure_reason from payouts where id = ${failed[0]!.id}`;
    expect(row!.failure_reason).toBe(
      `deposit address ${deposit} holds 0.000000 USDC on polygon; this payout sends ${(Number(g) / 1e6).toFixed(6)} and other payouts from it 0.000000`,
    );

    // After the bound: one activity, at least 5 attempts over at least the window, ending non-retryable.
    const handle = ctx.temporal.workflow.getHandle(id);
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendPayouts');
    expect(scheduled).toHaveLength(1);
    const started = events.find(
      (e) =>
        e.activityTaskStartedEventAttributes &&
        Number(e.activityTaskStartedEventAttributes.scheduledEventId) === Number(scheduled[0]!.eventId),
    )!;
    const failure = events.find((e) => e.activityTaskFailedEventAttributes)!;
    expect(started.activityTaskStartedEventAttributes!.attempt).toBeGreaterThanOrEqual(5);
    expect(failure.activityTaskFailedEventAttributes!.failure?.applicationFailureInfo).toMatchObject({
      type: 'PayoutFailed',
      nonRetryable: true,
    });
    const ms = (t: typeof failure.eventTime) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
    expect(ms(failure.eventTime) - ms(scheduled[0]!.eventTime)).toBeGreaterThanOrEqual(WINDOW_SECONDS * 1000);
    // The run waits for an operator: open, no payout activity spinning, nothing settled.
    const description = await handle.describe();
    expect(description.status.name).toBe('RUNNING');
    expect(await pendingSendPayouts(id)).toEqual([]);
    expect(await settledEvents(id)).toBe(0);
    expect(await balanceOf(chain, token, m.wallet)).toBe(0n);

    // Operators see it: the payment view, the failed queue across payments, the metric.
    const view = await ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${id}`, headers: adminHeaders });
    expect(
      view.json().payouts.map((p: { kind: string; status: string; failureReason: string }) => [p.kind, p.status, p.failureReason]),
    ).toEqual([
      ['merchant', 'failed', row!.failure_reason],
      ['commission', 'failed', row!.failure_reason],
    ]);
    const queue = await ctx.app.inject({ method: 'GET', url: '/admin/v1/payouts?status=failed', headers: adminHeaders });
    expect(queue.statusCode).toBe(200);
    // Rows planned together share their creation time: the queue orders them by id then.
    expect(queue.json().payouts.map((p: { id: string; paymentId: string }) => [p.id, p.paymentId])).toEqual(
      failed.map((p) => [p.id, id]).sort(([a], [b]) => (a! < b! ? -1 : 1)),
    );
    const metrics = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('svc_payouts_failed{network="polygon",kind="merchant"} 1');
    expect(metrics.body).toContain('svc_payouts_failed{network="polygon",kind="commission"} 1');

    // One error line for the failure, naming the payout, the payment, the network and the reason.
    await eventually(
      async () => failureLines().length,
      (n) => n > 0,
      10_000,
      'the error line',
    );
    const lines = failureLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, payoutId: failed[0]!.id, paymentId: id, network: 'polygon', reason: row!.failure_reason });
    // Never a key or signed bytes (64 hex digits and more); addresses (40) are fine.
    expect(JSON.stringify(lines[0])).not.toMatch(/0x[0-9a-f]{64}/i);

    // The operator puts the money back and retries: sent once, payment.settled once.
    await setTokenBalance(deposit, g);
    const retried = await ctx.app.inject({ method: 'POST', url: `/admin/v1/payouts/${failed[0]!.id}/retry`, headers: adminHeaders });
    expect(retried.statusCode).toBe(200);
    expect(retried.json().payout).toMatchObject({ id: failed[0]!.id, status: 'planned', failureReason: null });
    const payouts = await waitForPayouts(ctx, id, 60_000);
    expect(payouts.map((p) => [p.kind, p.amount])).toEqual([
      ['gas', expect.any(BigInt)],
      ['merchant', split.merchant],
      ['commission', split.commission],
    ]);
    expect((await handle.result()).status).toBe('completed');
    expect(await balanceOf(chain, token, m.wallet)).toBe(split.merchant);
    expect(await balanceOf(chain, token, deposit)).toBe(0n);
    expect(await settledEvents(id)).toBe(1);
    expect(receiver.received.filter((d) => d.body.event === 'payment.settled' && d.body.sessionId === id)).toHaveLength(1);
    const [lines2] = await ctx.db
      .sql`select count(*)::int as n from ledger_entries where posting_id like 'payout:%' and payment_id = ${id}`;
    expect(lines2!.n).toBe(6);
    expect(await unbalancedPostings(ctx)).toEqual([]);

    // Nothing failed any more; a retry of a payout that is not failed is a conflict, an unknown one not found.
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
    const { id, g, m } = await paidSession(async () => proxy.setDown(true));
    // Down for seven attempts over more than the window (1 + 2 + 4 + 8 + 10 + 10 s of back-off),
    // past both halves of the refusal bound: each failure is transient, and none counts towards it.
    await eventually(
      async () => (await pendingSendPayouts(id))[0]?.attempt ?? 0,
      (attempt) => attempt >= 7,
      120_000,
      'seven attempts during the outage',
    );
    expect(proxy.sprung()).toEqual(['eth_call:before', 'eth_call:before']);
    expect(await ctx.db.sql`select id from payouts where payment_id = ${id} and status = 'failed'`).toEqual([]);
    proxy.setDown(false);

    const payouts = await waitForPayouts(ctx, id, 90_000);
    expect(payouts.map((p) => p.kind)).toEqual(['gas', 'merchant', 'commission']);
    expect(await balanceOf(chain, token, m.wallet)).toBe(commissionSplit(g, 150).merchant);
    expect((await ctx.temporal.workflow.getHandle(id).result()).status).toBe('completed');
    expect(await settledEvents(id)).toBe(1);
    const [row] = await ctx.db.sql`select count(*)::int as n from payouts where payment_id = ${id} and failure_reason is not null`;
    expect(row!.n).toBe(0);
    expect(failureLines()).toHaveLength(failuresBefore);
  }, 300_000);
});
