import { describe, expect, it } from 'vitest';
import { commissionSplit } from '../../src/domain/money';
import { balanceOf, mint, randomAddress } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import {
  merchantWithFreshWallet,
  openSession,
  ownTreasury,
  reconciliationDifferences,
  unbalancedPostings,
  refundAllAtOnce,
} from './support';

// Many transfers signed by the one treasury at once (docs/settlement.md). A merchant paid out manually
// (its balance stays after the sweep) refunds N payments at the same moment: N refund runs sign
// from the treasury side by side, and the next free nonce (read, signed, and stored only if no other
// payout of the sender stored it first) gives N distinct, gap-free nonces; every refund is confirmed
// once, and the chain saw exactly the sweeps and the N refunds from the treasury.
const N = 30;
const own = ownTreasury({ PAYOUT_CONCURRENCY: String(N), PAYOUT_INTERVAL_SECONDS: '1' });
// All N sent at once (the worker's payout slots, PAYOUT_CONCURRENCY, as many as the refunds).
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;
const token = chain.tokens.polygon.USDC;

describe('concurrent payouts from one treasury', () => {
  it(`sends ${N} refunds at once with no nonce collision`, async () => {
    const m = await merchantWithFreshWallet(ctx, 100);
    await ctx.db.sql`update merchants set payout_schedule = 'manual' where id = ${m.id}`;
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
    await Promise.all(sessions.map((s) => mint(chain, token, s.deposit, s.g)));
    for (const s of sessions) await waitForStatus(ctx, s.id, 'completed', 60_000);
    // Swept into the treasury; the merchant's balance stays there (manual payouts).
    const ids = sessions.map((s) => s.id);
    await eventually(
      async () =>
        (
          await ctx.db.sql`select count(*)::int as n from payout_items i join payouts p on p.id = i.payout_id
            where i.payment_id in ${ctx.db.sql(ids)} and p.kind = 'sweep' and p.status = 'confirmed'`
        )[0]!.n as number,
      (n) => n === N,
      120_000,
      `all ${N} deposits swept`,
    );
    const sweeps = (await ctx.db.sql`select count(*)::int as n from payouts where kind = 'sweep' and from_address = ${own.treasury}`)[0]!
      .n as number;

    const customers = sessions.map(() => randomAddress());
    const shares = sessions.map((s) => commissionSplit(s.g, 100).merchant);
    const answers = await refundAllAtOnce(
      ctx,
      sessions.map((s, i) => ({ paymentId: s.id, amount: shares[i]!, address: customers[i]! })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(sessions.map(() => 201));
    await eventually(
      async () =>
        (
          await ctx.db.sql`select count(*)::int as n from payment_refunds where payment_id in ${ctx.db.sql(ids)} and status = 'refunded'`
        )[0]!.n as number,
      (n) => n === N,
      240_000,
      `all ${N} refunds confirmed`,
    );

    const sent = await ctx.db
      .sql`select nonce, replaced_hashes from payouts where kind = 'payment_refund' and from_address = ${own.treasury} order by nonce`;
    expect(sent).toHaveLength(N);
    const nonces = sent.map((r) => r.nonce as number);
    expect(new Set(nonces).size).toBe(N);
    expect(nonces).toEqual(Array.from({ length: N }, (_, i) => nonces[0]! + i));
    expect(sent.every((r) => (r.replaced_hashes as string[]).length === 0)).toBe(true);
    expect(await chain.publicClient.getTransactionCount({ address: own.treasury })).toBe(treasuryNonceBefore + sweeps + N);

    for (const [i, customer] of customers.entries()) expect(await balanceOf(chain, token, customer)).toBe(shares[i]);
    expect(await balanceOf(chain, token, m.wallet)).toBe(0n);
    expect(await unbalancedPostings(ctx)).toEqual([]);
    expect(await reconciliationDifferences(ctx)).toEqual([]);
  }, 300_000);
});
