import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { balanceOf } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { envFor, killHard, startEntryPoint } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { merchantWithFreshWallet, openSession, ownTreasury, unbalancedPostings } from '../payouts/support';

// The reliability game day with batched settlement (docs/settlement.md): 200 payments opened and paid
// through the sandbox (a real token transfer each) while worker processes (worker.ts) are SIGKILLed
// 20 times, the oldest every couple of seconds and a fresh one started in its place (two run
// otherwise). Settlement runs sweep and pay every second meanwhile, so the kills land anywhere: in a
// completion, a sweep's or a payout's plan, signature, broadcast or confirmation, a delivery.
// Afterwards every payment is completed once, swept once and paid out once (the merchant's wallet
// holds the exact sum of the shares, the treasury gained exactly the commission, no deposit holds
// money or native coin), a few chain transactions served them all, payment.settled was written once per payment,
// the ledger balances, and reconciliation finds nothing. Every event reached the merchant's endpoint
// and every delivery ended succeeded or failed, none left pending by a kill mid-attempt. None may fail: the sandbox's transfers
// failed under this load once (its sender lost nonce races to another file's sandbox, now retried);
// should one fail again, the run first checks it moved nothing, then says so.

const PAYMENTS = 200;
const KILLS = 20;
const KILL_PAUSE_MS = 2_000;
const CONCURRENCY = 8;

const own = ownTreasury({ WEBHOOK_RETRY_BASE_SECONDS: '1', PAYOUT_INTERVAL_SECONDS: '1' });
// Retries a second apart: a delivery a kill interrupted is attempted again within the run's minutes.
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true });
const chain = own.chain;
const token = chain.tokens.polygon.USDC;

const workers: ChildProcess[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterAll(async () => {
  for (const w of workers) await killHard(w);
  await receiver?.close();
});
const startWorker = async () => {
  const { child } = await startEntryPoint('worker.ts', envFor(ctx.config), /worker: polling/);
  workers.push(child);
  return child;
};

describe('game day: payments and payouts while workers die', () => {
  it(`pays ${PAYMENTS} payments and their payouts exactly once through ${KILLS} worker kills; reconciliation is clean`, async () => {
    const alive = [await startWorker(), await startWorker()];
    const m = await merchantWithFreshWallet(ctx, 150);
    receiver = await startReceiver();
    const endpoint = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${receiver.url}/hooks` },
    });
    expect(endpoint.statusCode).toBe(201);
    const treasuryBefore = await balanceOf(chain, token, own.treasury);
    const nonceBefore = await chain.publicClient.getTransactionCount({ address: own.treasury });
    const started = performance.now();
    const ids: string[] = [];
    let killed = 0;
    let next = 0;
    // The oldest worker dies mid-whatever; a new one takes its place while the other carries on.
    const chaos = (async () => {
      while (killed < KILLS) {
        await new Promise((r) => setTimeout(r, KILL_PAUSE_MS));
        await killHard(alive.shift()!);
        killed++;
        alive.push(await startWorker());
      }
    })();

    async function payOne() {
      const id = await openSession(ctx, m.apiKey);
      ids.push(id);
      const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
        body: { reference: id, outcome: 'succeeded' },
      });
      expect(paid.status, JSON.stringify(paid.json)).toBe(200);
    }
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < PAYMENTS) {
          next++;
          await payOne();
        }
      }),
    );
    await chaos;
    expect(killed).toBe(KILLS);

    const allIds = ctx.db.sql(ids);
    await eventually(
      () =>
        ctx.db.sql`select count(*)::int as n from checkout_sessions where id in ${allIds} and status in ('completed', 'failed')`.then(
          (r) => r[0]!.n as number,
        ),
      (n) => n === PAYMENTS,
      600_000,
      `all ${PAYMENTS} payments completed or failed`,
    ).catch(async (err: unknown) => {
      // What an operator would look at for a payment that did not end: its row, its credits, the provider's events, its run.
      const stuck = await ctx.db
        .sql`select id, status, provider_payment_id, deposit_address, expected_gross_micro::text from checkout_sessions where id in ${allIds} and status not in ('completed', 'failed')`;
      for (const s of stuck) {
        const credits = await ctx.db.sql`select transaction_hash, amount_micro::text, state from chain_credits where payment_id = ${s.id}`;
        const events = await ctx.db.sql`select event_id, type, state from provider_events where payment_id = ${s.id}`;
        const history = await ctx.temporal.workflow.getHandle(s.id as string).fetchHistory();
        const kinds = (history.events ?? []).map((e) => String(e.eventType)).join(',');
        console.log(
          `stuck ${JSON.stringify(s)} credits=${JSON.stringify(credits)} providerEvents=${JSON.stringify(events)} history=${kinds}`,
        );
      }
      throw err;
    });
    // Failed by the provider: no money arrived, none left.
    const failed = (await ctx.db.sql`select id, deposit_address from checkout_sessions where id in ${allIds} and status = 'failed'`).map(
      (r) => ({ id: r.id as string, deposit: r.deposit_address as `0x${string}` }),
    );
    for (const f of failed) {
      const [seen] = await ctx.db.sql`select
        (select count(*)::int from chain_credits where payment_id = ${f.id}) as credits,
        (select count(*)::int from payouts where payment_id = ${f.id}) as payouts,
        (select count(*)::int from provider_events where payment_id = ${f.id} and type = 'payment.failed') as provider_failed`;
      expect(seen, f.id).toEqual({ credits: 0, payouts: 0, provider_failed: 1 });
      expect(await balanceOf(chain, token, f.deposit)).toBe(0n);
    }
    expect(
      failed.map((f) => f.id),
      'payments the provider failed',
    ).toEqual([]);
    const completedIds = ids.filter((id) => !failed.some((f) => f.id === id));
    const done = completedIds.length;
    const inIds = ctx.db.sql(completedIds);
    // Each payment in exactly one confirmed sweep and one confirmed payout; none in a live one besides.
    const settlementOf = (kind: 'sweep' | 'merchant') =>
      ctx.db
        .sql`select p.status, count(distinct i.payment_id)::int as payments, count(*)::int as items, count(distinct p.id)::int as transactions
        from payout_items i join payouts p on p.id = i.payout_id
        where i.payment_id in ${inIds} and p.kind = ${kind} and p.status <> 'failed' group by p.status`;
    const payouts = await eventually(
      () => settlementOf('merchant'),
      (rows) => rows.length === 1 && rows[0]!.status === 'confirmed' && rows[0]!.payments === done && rows[0]!.items === done,
      600_000,
      'every payment swept and paid out',
    );
    const sweeps = await settlementOf('sweep');
    expect(sweeps).toEqual([{ status: 'confirmed', payments: done, items: done, transactions: expect.any(Number) }]);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `game day: ${done} payments completed and paid out, ${failed.length} failed by the provider, in ${seconds.toFixed(1)} s through ${killed} worker kills: ${sweeps[0]!.transactions} sweeps, ${payouts[0]!.transactions} payouts`,
    );
    // Batched: far fewer chain transactions than payments, every one the treasury's.
    const sent = (await chain.publicClient.getTransactionCount({ address: own.treasury })) - nonceBefore;
    expect(sent).toBeGreaterThanOrEqual(sweeps[0]!.transactions + payouts[0]!.transactions);
    expect(sent).toBeLessThan(done);

    // Exactly once, measured where it matters: the wallets hold the exact sums of the splits.
    const [sums] = await ctx.db
      .sql`select sum(gross_micro)::text as gross, sum(merchant_settlement_micro)::text as merchant, sum(platform_commission_micro)::text as commission, count(*)::int as n
      from transactions where payment_id in ${inIds}`;
    expect(sums!.n).toBe(done);
    const [gross] = await ctx.db.sql`select sum(expected_gross_micro)::text as g from checkout_sessions where id in ${inIds}`;
    expect(sums!.gross).toBe(gross!.g);
    expect(BigInt(sums!.merchant as string) + BigInt(sums!.commission as string)).toBe(BigInt(gross!.g as string));
    expect(await balanceOf(chain, token, m.wallet)).toBe(BigInt(sums!.merchant as string));
    expect((await balanceOf(chain, token, own.treasury)) - treasuryBefore).toBe(BigInt(sums!.commission as string));
    const deposits = await ctx.db.sql`select deposit_address from checkout_sessions where id in ${inIds}`;
    for (const d of deposits) {
      const address = d.deposit_address as `0x${string}`;
      expect(await balanceOf(chain, token, address), address).toBe(0n);
      expect(await chain.publicClient.getBalance({ address }), address).toBe(0n);
    }
    const settled = await eventually(
      () =>
        ctx.db
          .sql`select count(*)::int as n, count(distinct payment_id)::int as d from events where type = 'payment.settled' and payment_id in ${inIds}`.then(
          (r) => r[0]!,
        ),
      (e) => e.n >= done,
      60_000,
      'payment.settled for every completed payment',
    );
    expect(settled).toEqual({ n: done, d: done });

    // Every event delivered or visibly failed. The API's sweep runs as it does every round, with a
    // grace of seconds rather than minutes: both workers are alive now, so a run that still owns an
    // interrupted delivery retries it within the schedule's bound, which the sweep always waits out.
    const openDeliveries = () =>
      ctx.db.sql`select d.id, e.type, d.attempt_count from webhook_deliveries d join events e on e.id = d.event_id
        where e.payment_id in ${allIds} and d.status = 'pending'`;
    await eventually(
      async () => {
        await ctx.app.payments.sweepOrphanedDeliveries(20);
        return openDeliveries();
      },
      (rows) => rows.length === 0,
      240_000,
      'every delivery succeeded or failed',
    );
    const written = await ctx.db.sql`select id, type from events where payment_id in ${allIds}`;
    const seen = new Set(receiver.received.map((d) => d.headers['svc-event-id']));
    expect(
      written.filter((e) => !seen.has(e.id as string)),
      'events the receiver never saw',
    ).toEqual([]);

    expect(await unbalancedPostings(ctx)).toEqual([]);
    const reconciliation = await ctx.app.inject({ method: 'GET', url: '/admin/v1/reconciliation', headers: adminHeaders });
    expect(reconciliation.json().differences).toEqual([]);
  }, 1_500_000);
});
