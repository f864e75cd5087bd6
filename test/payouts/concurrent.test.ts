import { describe, expect, it } from 'vitest';
import { commissionSplit } from '../../src/domain/money';
import { balanceOf, mint } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { pressPay, sessionRow } from '../proof/support';
import { merchantWithFreshWallet, openSession, ownTreasury, unbalancedPostings } from './support';

// Decisions §11: 50 payments paid out at once, each funding its deposit address's gas from the one
// treasury: the next free nonce (read, signed, and stored only if no other payout of the sender
// stored it first) gives 50 distinct, gap-free nonces, every payout is
// confirmed, and the chain saw exactly 50 transactions from the treasury.
const N = 50;
const own = ownTreasury({ PAYOUT_CONCURRENCY: String(N) });
// All 50 sent at once (the worker's payout slots, PAYOUT_CONCURRENCY, as many as the payments).
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;
const token = chain.tokens.polygon.USDC;

describe('concurrent payouts from one treasury', () => {
  it(`pays out ${N} sessions at once with no nonce collision`, async () => {
    const m = await merchantWithFreshWallet(ctx, 100);
    const treasuryNonceBefore = await chain.publicClient.getTransactionCount({ address: own.treasury });
    const sessions: { id: string; g: bigint; deposit: `0x${string}` }[] = [];
    for (let i = 0; i < N; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, N - i) }, async () => {
          const id = await openSession(ctx, m.apiKey);
          const g = await pressPay(ctx, id);
          return { id, g, deposit: (await sessionRow(ctx, id)).depositAddress };
        }),
      );
      sessions.push(...batch);
    }
    // The money arrives within a few blocks, so the payouts run side by side.
    await Promise.all(sessions.map((s) => mint(chain, token, s.deposit, s.g)));

    const ids = sessions.map((s) => s.id);
    await eventually(
      async () =>
        (await ctx.db.sql`select count(*)::int as n from payouts where payment_id in ${ctx.db.sql(ids)} and status = 'confirmed'`)[0]!
          .n as number,
      (n) => n === 3 * N,
      240_000,
      `all ${3 * N} payouts to be confirmed`,
    );

    const gas = await ctx.db
      .sql`select nonce, tx_hash, replaced_hashes from payouts where kind = 'gas' and from_address = ${own.treasury} order by nonce`;
    expect(gas).toHaveLength(N);
    const nonces = gas.map((r) => r.nonce as number);
    expect(new Set(nonces).size).toBe(N);
    expect(nonces).toEqual(Array.from({ length: N }, (_, i) => nonces[0]! + i));
    expect(nonces[0]).toBe(treasuryNonceBefore);
    expect(gas.every((r) => (r.replaced_hashes as string[]).length === 0)).toBe(true);
    expect(await chain.publicClient.getTransactionCount({ address: own.treasury })).toBe(treasuryNonceBefore + N);

    const net = sessions.reduce((sum, s) => sum + commissionSplit(s.g, 100).merchant, 0n);
    expect(await balanceOf(chain, token, m.wallet)).toBe(net);
    expect(await unbalancedPostings(ctx)).toEqual([]);
  }, 300_000);
});
