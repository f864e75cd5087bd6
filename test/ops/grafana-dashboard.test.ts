import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { exposedSeriesNames, metricNamesIn, promtool } from '../support/prometheus';
import { freePort } from '../support/free-port';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { envFor, killHard, startEntryPoint } from '../support/processes';

// The dashboard (and the alerting rules) use only metrics the service exposes: every
// expression is parsed by promtool and every metric it names is in a real scrape of the app, or,
// for the workers' panels and rules, of a real worker.ts process.
const OPS = path.resolve(__dirname, '..', '..', 'ops');
const ctx = useTestApp();
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghij';
const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

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
// An expression about the workers reads their scrape: the Temporal SDK's families, or the worker job's process metrics.
const aboutWorkers = (expr: string) => /\btemporal_\w/.test(expr) || expr.includes('job="svc-checkout-worker"');

/**
 * A worker.ts process's /metrics (behind METRICS_TOKEN, as in production) once it has run a task of
 * each kind and seen each kind fail: a failure counter is exported from its first failure on.
 */
async function workerScrape(): Promise<string> {
  const port = await freePort();
  const { child } = await startEntryPoint(
    'worker.ts',
    { ...envFor(ctx.config), WORKER_METRICS_PORT: String(port), METRICS_TOKEN },
    /worker: polling/,
  );
  stops.push(() => killHard(child));
  const taskQueue = ctx.config.temporal.taskQueue;
  // An activity that fails: a resend of a delivery that does not exist is refused by deliverWebhook.
  const resend = await ctx.temporal.workflow.execute('webhookDelivery', {
    taskQueue,
    workflowId: `missing-delivery-${randomUUID()}`,
    args: [{ deliveryId: 'dlv_missing', once: true, retry: { baseSeconds: 1, maxIntervalSeconds: 1, windowHours: 1 } }],
  });
  expect(resend).toBe('failed');
  // A workflow task that fails: a workflow type the bundle does not export. Its run retries the task
  // until it is ended, so it is ended with the file.
  const unknown = await ctx.temporal.workflow.start('noSuchWorkflow', { taskQueue, workflowId: `unknown-type-${randomUUID()}` });
  stops.push(() => unknown.terminate().catch(() => undefined));
  return eventually(
    () => fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text()),
    (text) =>
      ['temporal_workflow_task_execution_failed_total', 'temporal_activity_execution_failed_total'].every((n) => text.includes(`\n${n}{`)),
    30_000,
    'the worker’s failure counters',
  );
}

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

  it('names only metrics a running app or worker exposes on /metrics, as do the alerting rules', async () => {
    const scrape = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    const exposed = exposedSeriesNames(scrape.body);
    expect(exposed.has('svc_payment_completion_seconds_bucket')).toBe(true);
    const workerBody = await workerScrape();
    const workerExposed = exposedSeriesNames(workerBody);
    const used = new Set<string>();
    for (const { where, expr } of [...dashboardExprs, ...ruleExprs]) {
      const names = metricNamesIn(expr);
      expect(names.length, `${where}: ${expr}`).toBeGreaterThan(0);
      const [source, scraped] = aboutWorkers(expr) ? ['a worker’s /metrics', workerExposed] : ['the API’s /metrics', exposed];
      for (const name of names) {
        used.add(name);
        expect(scraped.has(name) || PROMETHEUS_OWN.has(name), `${where} uses ${name}, which ${source} does not expose`).toBe(true);
      }
    }
    // The workers on the dashboard: backlog, schedule-to-start latency, workflow-task failures and
    // activity failures by type, each a query of a family a worker (or, for the backlog, the API) exports.
    const queries = dashboardExprs.map((e) => e.expr);
    for (const wanted of [
      /\bsvc_task_queue_backlog\b/,
      /\btemporal_workflow_task_schedule_to_start_latency_bucket\b/,
      /\btemporal_activity_schedule_to_start_latency_bucket\b/,
      /\btemporal_workflow_task_execution_failed_total\b/,
      /by \(activity_type\) \(rate\(temporal_activity_execution_failed_total\b/,
      /^sum\(up\{job="svc-checkout-worker"\}\)$/,
    ]) {
      expect(
        queries.some((q) => wanted.test(q)),
        String(wanted),
      ).toBe(true);
    }
    expect(workerBody).toMatch(/^temporal_activity_execution_failed_total\{[^}]*activity_type="deliverWebhook"/m);
    expect(scrape.body).toMatch(
      new RegExp(`^svc_task_queue_backlog\\{task_queue="${ctx.config.temporal.taskQueue}",task_type="workflow"\\} \\d+$`, 'm'),
    );
    // Every business family of ours is on the dashboard.
    const ours = [...scrape.body.matchAll(/^# TYPE (svc_\w+) (\w+)/gm)].map((m) => (m[2] === 'histogram' ? `${m[1]}_bucket` : m[1]!));
    expect(ours.length).toBeGreaterThan(10);
    for (const family of ours) expect(used.has(family), `${family} is on no panel`).toBe(true);
  }, 120_000);

  it('reads metric names out of PromQL, so the check above can fail', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, max by (le, outcome) (delta(svc_nope_bucket{outcome=~"fa.*", x="a{b}"}[15m]))) / on (x) group_left bar',
      ),
    ).toEqual(['svc_nope_bucket', 'bar']);
    expect(metricNamesIn('max(up{job="svc-checkout"}) == 0 and rate(x_total[5m] offset 1h) > 0.5')).toEqual(['up', 'x_total']);
    expect(aboutWorkers('max by (task_queue) (svc_task_queue_backlog)')).toBe(false);
    expect(aboutWorkers('rate(process_cpu_seconds_total{job="svc-checkout"}[5m])')).toBe(false);
    expect(aboutWorkers('rate(process_cpu_seconds_total{job="svc-checkout-worker"}[5m])')).toBe(true);
    expect(aboutWorkers('sum(rate(temporal_activity_execution_failed_total[5m]))')).toBe(true);
    expect(exposedSeriesNames('# TYPE a histogram\n# TYPE b gauge\nb{x="1"} 2\nc 3\n')).toEqual(
      new Set(['a', 'a_bucket', 'a_sum', 'a_count', 'b', 'c']),
    );
  });
});
