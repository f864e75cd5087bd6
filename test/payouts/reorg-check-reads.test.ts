import { custom, http as viemHttp } from 'viem';
import { describe, expect, it } from 'vitest';
import { createChainClient } from '../../src/chains/clients';
import { createReorgCheck } from '../../src/watchers/reorg-watch';
import { payFromWallet } from '../support/chain';
import { useTestApp } from '../support/harness';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { merchantWithFreshWallet, openSession, ownTreasury, waitForPayouts } from './support';

// The reorg re-check (src/watchers/reorg-watch.ts) reads, every pass, the receipt of each
// payout confirmed within the window; a receipt says the transaction is mined, so the block at its
// recorded height is read only for a payout the node has no receipt of (the proof that it is gone).
// A settled payment's pass reads the credit's block and no payout's.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });

describe('the reorg re-check of a settled payment', () => {
  it("reads its payouts' receipts and the credit's block, not the payouts' blocks", async () => {
    const m = await merchantWithFreshWallet(ctx, 100);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    await payFromWallet(own.chain, own.chain.tokens.polygon.USDC, (await sessionRow(ctx, id)).depositAddress, g);
    await waitForStatus(ctx, id, 'completed');
    const payouts = await waitForPayouts(ctx, id);
    expect(payouts.map((p) => p.kind)).toEqual(['sweep', 'merchant']);

    const endpoint = ctx.config.chains.networks.find((n) => n.network === 'polygon')!;
    const inner = viemHttp(endpoint.rpcUrl)({});
    const calls = new Map<string, number>();
    const transport = custom({
      request: ({ method, params }: { method: string; params?: unknown }) => {
        calls.set(method, (calls.get(method) ?? 0) + 1);
        return inner.request({ method, params } as never);
      },
    });
    const check = createReorgCheck({
      db: ctx.db.db,
      temporal: ctx.temporal,
      settings: { windowHours: 1, chains: ctx.config.chains, taskQueue: ctx.config.temporal.taskQueue },
      client: createChainClient(endpoint, { transport }),
      log: () => {},
    });
    expect(await check()).toEqual({ lowestChanged: null });
    // The credit's receipt and each payout's; one block, the credit's (a payout's receipt is its proof).
    expect(calls.get('eth_getTransactionReceipt')).toBe(1 + payouts.length);
    expect(calls.get('eth_getBlockByNumber')).toBe(1);
  });
});
