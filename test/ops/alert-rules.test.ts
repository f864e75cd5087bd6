import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { promtool } from '../support/prometheus';

// The alerting rules in the repo, checked and unit-tested by Prometheus's own tool
// (series in, alerts out: ops/prometheus/alerts.test.yml).
const RULES_DIR = path.resolve(__dirname, '..', '..', 'ops', 'prometheus');
const scratch = mkdtempSync(path.join(tmpdir(), 'svc-alerts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('ops/prometheus/alerts.yml', () => {
  it('passes promtool check rules, with no lint finding', async () => {
    const checked = await promtool(['check', 'rules', '--lint=all', '--lint-fatal', 'alerts.yml'], { cwd: RULES_DIR });
    expect(checked.output).toMatch(/SUCCESS: 13 rules found/);
    expect(checked.code).toBe(0);
  });

  it('fires each alert when its series say so, and not before (promtool test rules)', async () => {
    const tested = await promtool(['test', 'rules', 'alerts.test.yml'], { cwd: RULES_DIR });
    expect(tested.output).toContain('SUCCESS');
    expect(tested.code).toBe(0);
  });

  it('has a unit test for every alert it defines', () => {
    const rules = readFileSync(path.join(RULES_DIR, 'alerts.yml'), 'utf8');
    const tests = readFileSync(path.join(RULES_DIR, 'alerts.test.yml'), 'utf8');
    const alerts = [...rules.matchAll(/^\s+- alert: (\w+)/gm)].map((m) => m[1]!);
    expect(alerts).toHaveLength(13);
    for (const alert of alerts) expect(tests, alert).toMatch(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
  });

  it('fails the unit tests when a rule changes what it fires on, so the tests above can fail', async () => {
    cpSync(path.join(RULES_DIR, 'alerts.test.yml'), path.join(scratch, 'alerts.test.yml'));
    const rules = readFileSync(path.join(RULES_DIR, 'alerts.yml'), 'utf8');
    // A stuck payout alerted after two hours instead of 30 minutes, payouts summed across processes, a
    // deployment with no worker scraped taken for a healthy one, and the backlog summed across
    // the API processes that each report all of it.
    const weakened = rules
      .replace('(svc_payout_oldest_open_age_seconds) > 1800', '(svc_payout_oldest_open_age_seconds) > 7200')
      .replace('max by (network, kind) (svc_payouts_failed)', 'sum by (network, kind) (svc_payouts_failed)')
      .replace(' or absent(up{job="svc-checkout-worker"})', '')
      .replace(
        'max by (task_queue, task_type) (svc_task_queue_backlog) > 50',
        'sum by (task_queue, task_type) (svc_task_queue_backlog) > 50',
      );
    expect(weakened).not.toBe(rules);
    writeFileSync(path.join(scratch, 'alerts.yml'), weakened);
    const tested = await promtool(['test', 'rules', 'alerts.test.yml'], { cwd: scratch });
    expect(tested.code).not.toBe(0);
    expect(tested.output).toContain('SvcPayoutStuck');
    expect(tested.output).toContain('SvcPayoutFailed');
    expect(tested.output).toContain('SvcWorkerDown');
    expect(tested.output).toContain('SvcWorkerBacklogGrowing');
  });
});
