import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commissionSplit } from '../../src/domain/money';
import { balanceOf, payFromWallet } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { killHard } from '../support/processes';
import { startRpcTrapProxy } from '../support/rpc-trap-proxy';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import {
  merchantWithFreshWallet,
  openSession,
  ownTreasury,
  payoutsOf,
  startWorkerVia,
  unbalancedPostings,
  waitForPayouts,
} from './support';

// Payouts exactly once whatever crashes: a worker process (worker.ts) reaches the chain through
// a JSON-RPC proxy that SIGKILLs it at one step of a settlement run (the sweep's signing, the
// merchant's payout's broadcast); the next worker's runs finish it, and the merchant's wallet holds
// exactly their share.
const own = ownTreasury({ PAYOUT_INTERVAL_SECONDS: '1' });
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true });
const chain = own.chain;
const token = chain.tokens.polygon.USDC;
let traps = 0;
let proxy: Awaited<ReturnType<typeof startRpcTrapProxy>>;
const children: ChildProcess[] = [];
beforeAll(async () => {
  proxy = await startRpcTrapProxy(chain.rpcUrl);
});
// One worker at a time: the trap must kill the process that made the call.
afterEach(async () => {
  for (const c of children.splice(0)) await killHard(c);
});
afterAll(() => proxy.close());

async function startWorker(): Promise<ChildProcess> {
  const child = await startWorkerVia(ctx, proxy.url);
  children.push(child);
  return child;
}

/** A completed session whose settlement the armed trap interrupts; resolves once the trap has sprung. */
async function paySessionUntilTrap(arm: (wallet: string, worker: () => ChildProcess) => void) {
  let worker = await startWorker();
  const m = await merchantWithFreshWallet(ctx, 200);
  arm(m.wallet.slice(2).toLowerCase(), () => worker);
  const id = await openSession(ctx, m.apiKey);
  const g = await pressPay(ctx, id);
  const { depositAddress } = await sessionRow(ctx, id);
  await payFromWallet(chain, token, depositAddress, g);
  // With the session's status: a red run says whether the payment or its settlement never got there.
  await eventually(
    async () => ({ armed: proxy.armed(), status: (await sessionRow(ctx, id)).status }),
    (now) => !now.armed,
    // A sweep's confirmation, then the payout's plan: longer than a payout alone under a loaded run.
    120_000,
    'the trap to spring',
  );
  expect(worker.exitCode !== null || worker.signalCode !== null).toBe(true);
  expect(proxy.sprung()).toHaveLength(++traps);
  return {
    id,
    g,
    m,
    restart: async () => {
      worker = await startWorker();
    },
  };
}

async function expectPaidOnce(id: string, wallet: string, g: bigint) {
  await waitForStatus(ctx, id, 'completed', 60_000);
  const payouts = await waitForPayouts(ctx, id, 90_000);
  expect((await ctx.temporal.workflow.getHandle(id).result()).status).toBe('completed');
  const split = commissionSplit(g, 200);
  // Swept once, paid once: one row each, whatever the kills.
  expect(payouts.map((p) => p.kind)).toEqual(['sweep', 'merchant']);
  expect(payouts.find((p) => p.kind === 'merchant')!.amount).toBe(split.merchant);
  expect(await balanceOf(chain, token, wallet as `0x${string}`)).toBe(split.merchant);
  expect(await balanceOf(chain, token, (await sessionRow(ctx, id)).depositAddress)).toBe(0n);
  await eventually(
    async () => (await ctx.db.sql`select count(*)::int as n from events where payment_id = ${id} and type = 'payment.settled'`)[0]!.n,
    (n) => n === 1,
    30_000,
    'payment.settled once',
  );
  expect(await unbalancedPostings(ctx)).toEqual([]);
  return payouts;
}

describe('a worker killed during a payout', () => {
  it('before signing: the planned sweep is signed once by the next worker', async () => {
    const run = await paySessionUntilTrap((_wallet, worker) =>
      proxy.arm({ method: 'eth_getTransactionCount', when: 'before', spring: () => killHard(worker()) }),
    );
    const atKill = await payoutsOf(ctx, run.id);
    expect(atKill.map((p) => [p.kind, p.status, p.txHash])).toEqual([['sweep', 'planned', null]]);
    await run.restart();
    await expectPaidOnce(run.id, run.m.wallet, run.g);
  }, 240_000);

  it('after signing, before broadcast: the next worker sends the stored transaction', async () => {
    const run = await paySessionUntilTrap((wallet, worker) =>
      proxy.arm({ method: 'eth_sendRawTransaction', matches: (p) => p.includes(wallet), when: 'before', spring: () => killHard(worker()) }),
    );
    const signed = (await payoutsOf(ctx, run.id)).find((p) => p.kind === 'merchant')!;
    expect(signed.status).toBe('signed');
    expect(await chain.publicClient.getTransaction({ hash: signed.txHash as `0x${string}` }).catch(() => null)).toBeNull();
    await run.restart();
    const payouts = await expectPaidOnce(run.id, run.m.wallet, run.g);
    const merchant = payouts.find((p) => p.kind === 'merchant')!;
    expect(merchant).toMatchObject({ txHash: signed.txHash, nonce: signed.nonce, replaced: [] });
  }, 240_000);

  it('after broadcast, before the receipt: the next worker confirms the transaction already sent', async () => {
    const run = await paySessionUntilTrap((wallet, worker) =>
      proxy.arm({ method: 'eth_sendRawTransaction', matches: (p) => p.includes(wallet), when: 'after', spring: () => killHard(worker()) }),
    );
    const sent = (await payoutsOf(ctx, run.id)).find((p) => p.kind === 'merchant')!;
    expect(sent.status).toBe('signed');
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: sent.txHash as `0x${string}`, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
    await run.restart();
    const payouts = await expectPaidOnce(run.id, run.m.wallet, run.g);
    expect(payouts.find((p) => p.kind === 'merchant')).toMatchObject({ txHash: sent.txHash, replaced: [] });
  }, 240_000);
});
