import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainWatchers } from '../../src/watchers/chain-watch';
import type { CheckoutWorker } from '../../src/worker/worker';
import { mint, randomAddress, sharedChain } from '../support/chain';
import { startTestWatchers, startTestWorker, useTestApp } from '../support/harness';
import { merchantOnEveryNetwork, openSession, payFromWallet, pressPay, sessionRow, waitForStatus } from './support';

// A network's first watcher (no cursor stored yet) starts after payments were opened and paid: the
// API takes payments whether a worker runs or not, and a freshly started worker's watcher takes its
// lease after its start-up. Started at the head, it would never read the transfer mined before it,
// and the payment would wait for proof that had already arrived (a test with a fresh worker failed
// this way under load: its first payment's transfer came before its watcher's first cursor).
const ctx = useTestApp({}, { listen: true, sandbox: true });
const chain = sharedChain();
const token = chain.tokens.polygon.USDC;

let worker: CheckoutWorker;
let watchers: ChainWatchers | undefined;
beforeAll(async () => {
  worker = await startTestWorker(ctx, { watch: false });
});
afterAll(async () => {
  await watchers?.stop();
  await worker?.shutdown();
});

describe("a network's first watcher", () => {
  it('reads from before the oldest open payment, so one paid before any watcher ran completes', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const paid = await payFromWallet(chain, token, depositAddress, g);
    // A later block, so that a watcher starting at the head starts past the transfer's.
    await mint(chain, token, randomAddress(), 1n);
    expect(await chain.publicClient.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(paid.blockNumber);
    expect(await ctx.db.sql`select network from chain_cursors`).toEqual([]);

    watchers = startTestWatchers(ctx, { networks: ctx.config.chains.networks.filter((n) => n.network === 'polygon'), log: () => {} });
    await waitForStatus(ctx, id, 'completed');
    const [credit] = await ctx.db.sql`select block_number from chain_credits where payment_id = ${id}`;
    expect(BigInt(credit!.block_number as string)).toBe(paid.blockNumber);
  });
});
