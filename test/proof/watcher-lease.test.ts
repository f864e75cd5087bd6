import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainWatchers } from '../../src/watchers/chain-watch';
import type { CheckoutWorker } from '../../src/worker/worker';
import { sharedChain } from '../support/chain';
import { startTestWatchers, startTestWorker, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { merchantOnEveryNetwork, openSession, payFromWallet, pressPay, sessionRow, waitForStatus } from './support';

// One active watcher per network across worker processes: two watcher sets on one database (as
// two workers run them), one scans and the other stands by; when the holder stops or loses its
// connection the other takes over within a bound, and a transfer made meanwhile still completes.
const ctx = useTestApp({}, { listen: true, sandbox: true });
const chain = sharedChain();
// Take-over bound with the harness's timers (heartbeat 500 ms, retry 300 ms, poll 200 ms), with room for a loaded machine.
const TAKEOVER_BOUND_MS = 3000;

let worker: CheckoutWorker;
const sets: ChainWatchers[] = [];
beforeAll(async () => {
  worker = await startTestWorker(ctx, { watch: false });
});
afterAll(async () => {
  for (const set of sets) await set.stop();
  await worker?.shutdown();
});

/** A watcher set for polygon only, counting its scans and lease events. */
function watcherSet() {
  const seen = { scans: 0, lost: 0 };
  const set = startTestWatchers(ctx, {
    networks: ctx.config.chains.networks.filter((n) => n.network === 'polygon'),
    onScan: () => seen.scans++,
    onLease: (_network, event) => {
      if (event === 'lost') seen.lost++;
    },
    log: () => {},
  });
  sets.push(set);
  return { set, seen };
}

/** Waits for `count` more scans of a set (200 ms apart): time measured in the holder's own work. */
async function scansMore(of: { seen: { scans: number } }, count: number, label: string) {
  const from = of.seen.scans;
  await eventually(
    async () => of.seen.scans,
    (n) => n >= from + count,
    10_000,
    label,
  );
}

async function sessionAwaitingTransfer() {
  const m = await merchantOnEveryNetwork(ctx);
  const id = await openSession(ctx, m.apiKey);
  const g = await pressPay(ctx, id);
  return { id, g, depositAddress: (await sessionRow(ctx, id)).depositAddress };
}

describe('one chain watcher per network', () => {
  it('scans from one set only, and the stand-by takes over when the holder stops', async () => {
    const a = watcherSet();
    await eventually(
      async () => a.seen.scans,
      (n) => n > 0,
      10_000,
      'the first set to scan',
    );
    const b = watcherSet();
    // The stand-by tries the lease every 300 ms: over the holder's next five scans it tried more than once.
    await scansMore(a, 5, 'five more scans of the holder');
    expect(b.seen.scans).toBe(0);

    const { id, g, depositAddress } = await sessionAwaitingTransfer();
    await a.set.stop();
    const stoppedAt = Date.now();
    const scansOfA = a.seen.scans;
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g);
    await eventually(
      async () => b.seen.scans,
      (n) => n > 0,
      TAKEOVER_BOUND_MS,
      'the stand-by to take over',
    );
    const tookOverMs = Date.now() - stoppedAt;
    expect(tookOverMs).toBeLessThan(TAKEOVER_BOUND_MS);
    await waitForStatus(ctx, id, 'completed');
    expect(a.seen.scans).toBe(scansOfA);
    await b.set.stop();
  });

  it('moves to the stand-by when the holder loses its database connection', async () => {
    const a = watcherSet();
    await eventually(
      async () => a.seen.scans,
      (n) => n > 0,
      10_000,
      'the first set to scan',
    );
    const b = watcherSet();
    await scansMore(a, 3, 'three more scans of the holder');
    expect(b.seen.scans).toBe(0);

    const { id, g, depositAddress } = await sessionAwaitingTransfer();
    // What a network cut or a Postgres failover does to the holder: its lease connection ends.
    const ended = await ctx.db.sql`
      select pg_terminate_backend(pid) as ended from pg_locks
      where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`;
    expect(ended.map((r) => r.ended)).toEqual([true]);
    const cutAt = Date.now();
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g);
    await eventually(
      async () => b.seen.scans,
      (n) => n > 0,
      TAKEOVER_BOUND_MS,
      'the stand-by to take over',
    );
    expect(Date.now() - cutAt).toBeLessThan(TAKEOVER_BOUND_MS);
    // The stand-by may win the freed lock before the old holder's next check (500 ms here) notices
    // the loss: an overlap of less than one check, which the idempotent signals make harmless.
    await eventually(
      async () => a.seen.lost,
      (n) => n === 1,
      5_000,
      'the old holder to notice its lost lease',
    );
    await waitForStatus(ctx, id, 'completed');

    // The old holder stands by now: it no longer scans while the new one does. A scan it had in
    // flight when the loss was noticed may still finish: let it, then watch.
    await scansMore(b, 2, 'the new holder scanning');
    const scansOfA = a.seen.scans;
    await scansMore(b, 5, 'five more scans of the new holder');
    expect(a.seen.scans).toBe(scansOfA);
  });
});
