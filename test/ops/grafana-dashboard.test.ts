import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { exposedSeriesNames, metricNamesIn, promtool } from '../support/prometheus';
import { useTestApp } from '../support/harness';

// The dashboard (and the alerting rules) use only metrics the service exposes: every
// expression is parsed by promtool and every metric it names is in a real scrape of the app.
const OPS = path.resolve(__dirname, '..', '..', 'ops');
const ctx = useTestApp();

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}
const dashboard = JSON.parse(readFileSync(path.join(OPS, 'grafana', 'svc-checkout.json'), 'utf8')) as { uid: string; panels: Panel[] };
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');
const dashboardExprs = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr })));
const rules = parse(readFileSync(path.join(OPS, 'prometheus', 'alerts.yml'), 'utf8')) as {
  groups: { rules: { alert: string; expr: string }[] }[];
};
const ruleExprs = rules.groups.flatMap((g) => g.rules.map((r) => ({ where: r.alert, expr: r.expr })));
// Series Prometheus writes itself for every target.
const PROMETHEUS_OWN = new Set(['up']);

describe('ops/grafana/svc-checkout.json', () => {
  it('has a query in every panel, and every query parses as PromQL', async () => {
    expect(panels.length).toBeGreaterThan(20);
    for (const p of panels) expect(p.targets?.length, p.title).toBeGreaterThan(0);
    // promtool parses PromQL as Prometheus does: the queries as recording rules of a throwaway group.
    const asRules = {
      groups: [{ name: 'dashboard', rules: dashboardExprs.map((e, i) => ({ record: `dashboard:query${i}`, expr: e.expr })) }],
    };
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'svc-dashboard-')), 'queries.json');
    writeFileSync(file, JSON.stringify(asRules));
    const checked = await promtool(['check', 'rules', file]);
    rmSync(path.dirname(file), { recursive: true, force: true });
    expect(checked.output).toContain(`SUCCESS: ${dashboardExprs.length} rules found`);
    expect(checked.code).toBe(0);
  });

  it('names only metrics a running app exposes on /metrics, as do the alerting rules', async () => {
    const scrape = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    const exposed = exposedSeriesNames(scrape.body);
    expect(exposed.has('svc_payment_completion_seconds_bucket')).toBe(true);
    const used = new Set<string>();
    for (const { where, expr } of [...dashboardExprs, ...ruleExprs]) {
      const names = metricNamesIn(expr);
      expect(names.length, `${where}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) {
        used.add(name);
        expect(exposed.has(name) || PROMETHEUS_OWN.has(name), `${where} uses ${name}, which /metrics does not expose`).toBe(true);
      }
    }
    // Every business family of ours is on the dashboard.
    const ours = [...scrape.body.matchAll(/^# TYPE (svc_\w+) (\w+)/gm)].map((m) => (m[2] === 'histogram' ? `${m[1]}_bucket` : m[1]!));
    expect(ours.length).toBeGreaterThan(10);
    for (const family of ours) expect(used.has(family), `${family} is on no panel`).toBe(true);
  });

  it('reads metric names out of PromQL, so the check above can fail', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, max by (le, outcome) (delta(svc_nope_bucket{outcome=~"fa.*", x="a{b}"}[15m]))) / on (x) group_left bar',
      ),
    ).toEqual(['svc_nope_bucket', 'bar']);
    expect(metricNamesIn('max(up{job="svc-checkout"}) == 0 and rate(x_total[5m] offset 1h) > 0.5')).toEqual(['up', 'x_total']);
    expect(exposedSeriesNames('# TYPE a histogram\n# TYPE b gauge\nb{x="1"} 2\nc 3\n')).toEqual(
      new Set(['a', 'a_bucket', 'a_sum', 'a_count', 'b', 'c']),
    );
  });
});
