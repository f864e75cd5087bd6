import { describe, expect, it } from 'vitest';
import { saveCursor } from '../../src/db/queries/chain-cursors';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';

// The chain watchers' lag (head − confirmedThrough) and the age of their last scan,
// per network, on /metrics (read from Postgres, as the worker that holds the lease wrote them).
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghij';
const ctx = useTestApp({ METRICS_TOKEN }, { worker: true });

const scrape = async () =>
  (await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
const sample = (text: string, name: string, network: string) => {
  const match = new RegExp(`^${name}\\{network="${network}"\\} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
};

describe('chain watcher metrics', () => {
  it('reports each watched network’s lag and the age of its last scan', async () => {
    const text = await eventually(
      scrape,
      (t) => ['polygon', 'ethereum', 'base', 'arbitrum'].every((n) => sample(t, 'svc_chain_watcher_lag_blocks', n) !== undefined),
      15_000,
      'every network scanned',
    );
    // The dev chain needs one confirmation: a watcher that keeps up confirms through the head.
    expect(sample(text, 'svc_chain_watcher_lag_blocks', 'polygon')).toBe(0);
    expect(sample(text, 'svc_chain_watcher_scan_age_seconds', 'polygon')).toBeLessThan(5);
  });

  it('shows a watcher that fell behind, and one that stopped', async () => {
    await saveCursor(ctx.db.db, 'behind', JSON.stringify({ confirmedThrough: '100', pending: [] }), { head: 130n, confirmedThrough: 100n });
    await saveCursor(ctx.db.db, 'stopped', JSON.stringify({ confirmedThrough: '7', pending: [] }), { head: 7n, confirmedThrough: 7n });
    await ctx.db.sql`update chain_cursors set updated_at = now() - interval '10 minutes' where network = 'stopped'`;
    const text = await scrape();
    expect(sample(text, 'svc_chain_watcher_lag_blocks', 'behind')).toBe(30);
    expect(sample(text, 'svc_chain_watcher_scan_age_seconds', 'stopped')).toBeGreaterThanOrEqual(600);
    expect(text).toContain('# TYPE svc_chain_watcher_lag_blocks gauge');
  });
});
