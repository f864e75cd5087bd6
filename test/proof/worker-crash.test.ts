import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedChain } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { envFor, killHard, startEntryPoint } from '../support/processes';
import { creditsOf, merchantOnEveryNetwork, openSession, payFromWallet, pressPay, sessionRow, waitForStatus } from './support';

// A worker process (worker.ts: workflows, activities and the chain watchers) killed with SIGKILL the
// moment its watcher's credit reaches Postgres, i.e. between detection and completion: the next
// worker completes the payment once (one transaction, one payment.completed, one credit).
const ctx = useTestApp({}, { listen: true, sandbox: true });
const chain = sharedChain();
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) await killHard(c);
});

async function startWorker() {
  const { child } = await startEntryPoint('worker.ts', envFor(ctx.config), /worker: polling/);
  children.push(child);
  return child;
}

describe('a worker killed between detection and completion', () => {
  it('completes the payment once when the next worker takes over', async () => {
    const first = await startWorker();
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g);

    await eventually(
      () => creditsOf(ctx, id),
      (c) => c.length === 1,
      20_000,
      'the first worker to credit the transfer',
    );
    await killHard(first);

    await startWorker();
    await waitForStatus(ctx, id, 'completed', 45_000);
    // The run ends after its completion event is written.
    expect((await ctx.temporal.workflow.getHandle(id).result()).status).toBe('completed');
    const [counts] = await ctx.db.sql`select
      (select count(*)::int from transactions where payment_id = ${id}) as transactions,
      (select count(*)::int from events where payment_id = ${id} and type = 'payment.completed') as completed,
      (select count(*)::int from chain_credits where payment_id = ${id}) as credits`;
    expect(counts).toEqual({ transactions: 1, completed: 1, credits: 1 });
    const [tx] = await ctx.db.sql`select gross_micro from transactions where payment_id = ${id}`;
    expect(BigInt(tx!.gross_micro as string)).toBe(g);
  }, 120_000);
});
