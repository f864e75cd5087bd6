import { afterAll, describe, expect, it } from 'vitest';
import { allocateDepositAddress } from '../../src/db/queries/deposit-addresses';
import { depositDeriver } from '../../src/payments/deposits';
import type { ChainWatchers } from '../../src/watchers/chain-watch';
import { mint, randomAddress, sharedChain } from '../support/chain';
import { startTestWatchers, useTestApp } from '../support/harness';
import { eventually } from '../support/http';

// A network with nothing to watch scans less often and writes its cursor now and then, not on every
// scan (a read and a write a second, per network, for nothing); once an address is watched, it scans
// at the poll interval and every scan writes the cursor, since its customer's page shows the head moving.
const ctx = useTestApp();
const chain = sharedChain();
let watchers: ChainWatchers | undefined;
afterAll(async () => {
  await watchers?.stop();
});

const cursorWrittenAt = async () =>
  ((await ctx.db.sql`select updated_at::text as at from chain_cursors where network = 'polygon'`)[0]?.at as string | undefined) ?? null;

describe('the chain cursor of a network', () => {
  it('is written when first made, not on every idle scan, and on every scan once an address is watched', async () => {
    let scans = 0;
    const scannedAt: number[] = [];
    watchers = startTestWatchers(ctx, {
      networks: ctx.config.chains.networks.filter((n) => n.network === 'polygon'),
      pollIntervalMs: 200,
      idlePollIntervalMs: 600,
      onScan: () => {
        scans++;
        scannedAt.push(Date.now());
      },
      log: () => {},
    });
    const scansMore = async (count: number, label: string) => {
      const from = scans;
      await eventually(
        async () => scans,
        (n) => n >= from + count,
        10_000,
        label,
      );
    };
    await scansMore(1, 'the first scan');
    const first = await cursorWrittenAt();
    expect(first).not.toBeNull();
    // The head moves (a transfer to nobody watched); the idle network scans on without writing.
    await mint(chain, chain.tokens.polygon.USDC, randomAddress(), 1n);
    const idleFrom = scannedAt.length;
    await scansMore(3, 'three idle scans');
    expect(await cursorWrittenAt()).toBe(first);
    // Idle scans wait the idle interval between them.
    const idle = scannedAt.slice(idleFrom - 1);
    for (let i = 1; i < idle.length; i++) expect(idle[i]! - idle[i - 1]!).toBeGreaterThanOrEqual(550);

    // An address to watch (a merchant's top-up address): every scan writes the cursor from now on.
    await allocateDepositAddress(ctx.db.db, {
      paymentReference: 'topup:MER_idle_cursor:polygon',
      network: 'polygon',
      derive: depositDeriver(ctx.config, 'polygon'),
    });
    await scansMore(2, 'the address read');
    const watched = await cursorWrittenAt();
    expect(watched).not.toBe(first);
    await scansMore(2, 'two watched scans');
    expect(await cursorWrittenAt()).not.toBe(watched);
  });
});
