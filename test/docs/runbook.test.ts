import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/guides';

// An alert that pages someone must come with what to do: every rule of ops/prometheus/alerts.yml has
// its entry (a `### <alert name>` heading) in the runbook of docs/operations.md.

const rules = (
  parse(readFileSync(path.join(ROOT, 'ops/prometheus/alerts.yml'), 'utf8')) as { groups: { rules: { alert?: string }[] }[] }
).groups
  .flatMap((g) => g.rules)
  .flatMap((r) => (r.alert ? [r.alert] : []));
const operations = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
const runbook = operations.slice(operations.indexOf('\n## Runbook\n'));
const entries = [...runbook.matchAll(/^### (\S+)$/gm)].map((m) => m[1]!);

describe('the runbook', () => {
  it('has an entry for every alert rule', () => {
    expect(rules.length).toBeGreaterThan(0);
    expect(operations).toContain('\n## Runbook\n');
    expect(rules.filter((alert) => !entries.includes(alert))).toEqual([]);
  });

  it.each(rules)('%s: its entry says what to do', (alert) => {
    const at = runbook.indexOf(`\n### ${alert}\n`);
    const entry = runbook.slice(at + 1).split(/\n### /)[0]!;
    expect(entry.length, `${alert}: an entry of a few lines at least`).toBeGreaterThan(300);
    expect(entry, `${alert}: the steps`).toMatch(/^1\. /m);
    expect(entry, `${alert}: when it is over`).toMatch(/^Ends when /m);
  });
});
