import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const TSX_CLI = require.resolve('tsx/cli');

// Every figure of `npm run bench` comes with a baseline measured in the same run. This runs
// the bench's smoke mode end to end (its own Temporal dev server, anvil, database, processes) and
// checks the report's shape, never the numbers: speed targets live in the bench, not in unit tests.
const EXPECTED = [
  'merchant_lookup_rps',
  'merchant_lookup_cpu_us',
  'merchant_lookup_p99_half_load',
  'public_lookup_rps',
  'public_lookup_cpu_us',
  'public_lookup_p99_half_load',
  'session_creation_per_second',
  'session_creation_cpu_ms',
  ...['temporal', 'postgres', 'stack'].map((part) => `session_creation_${part}_cpu_ms`),
  'payments_per_second',
  'worker_rss_mib',
  ...['stack', 'temporal', 'postgres', 'worker'].map((part) => `cpu_ms_per_payment_${part}`),
  'pay_to_webhook_p50',
  'pay_to_webhook_p99',
  'history_events_per_payment',
  'payments_per_second_vs_paying_minimal',
  ...['worker', 'temporal', 'postgres', 'stack'].map((part) => `cpu_ms_per_payment_${part}_vs_paying_minimal`),
  'history_events_per_payment_vs_paying_minimal',
  'webhook_deliveries_per_second',
  'backlog_drain_per_second',
  'backlog_first_webhook_seconds',
  'backlog_cpu_ms_per_payment_stack',
  'backlog_machine_busy_share',
  ...[
    'drain_per_second',
    'cpu_ms_per_payment_worker',
    'cpu_ms_per_payment_postgres',
    'chain_transactions_per_payment',
    'gas_per_payment',
    'deposit_native_left_gwei',
    'sql_statements_per_payment',
  ].map((f) => `backlog_${f}_vs_paying_minimal`),
  ...[10, 100, 1000, 10_000, 100_000].flatMap((n) =>
    ['ms', 'us_per_open', 'rpc_calls', 'get_logs', 'heap_mib'].map((f) => `chain_watch_${f}_${n}`),
  ),
  ...['first_page', 'deep_page', 'filtered', 'search_email'].map((c) => `payment_list_${c}_ms`),
  'topology_payments_per_second',
];

describe('npm run bench --quick', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports every figure against its baseline, with each round, as JSON and as a table', async () => {
    const out = path.join(dir, 'report.json');
    const { stdout } = await promisify(execFile)(process.execPath, [TSX_CLI, 'bench/run.ts', '--quick', '--out', out], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'test' },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 540_000,
    });
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(report.quick).toBe(true);
    expect(report.figures.map((f: { id: string }) => f.id).sort()).toEqual([...EXPECTED].sort());
    for (const figure of report.figures) {
      expect(figure, figure.id).toMatchObject({ unit: expect.any(String), includes: expect.any(String), baselineIs: expect.any(String) });
      expect(['higher', 'lower']).toContain(figure.better);
      // Settlement runs never send native coin to a deposit address: there, nothing is the figure.
      const none = figure.id === 'backlog_deposit_native_left_gwei_vs_paying_minimal';
      if (none) expect([figure.ours, figure.ratio], figure.id).toEqual([0, 0]);
      for (const value of none ? [figure.baseline] : [figure.ours, figure.baseline, figure.ratio])
        expect(Number.isFinite(value) && value > 0, `${figure.id}: ${value}`).toBe(true);
      expect(figure.rounds.ours.length).toBeGreaterThan(0);
      expect(figure.rounds.ours.length).toBe(figure.rounds.baseline.length);
      expect(stdout).toContain(figure.title);
    }
  }, 600_000);
});
