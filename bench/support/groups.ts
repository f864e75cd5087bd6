import os from 'node:os';
import type { FigureGroup } from '../options';
import type { Figure } from './figures';

/** How one group of figures went: its figures' ids, or why it has none; the machine's load around it. */
export interface GroupReport {
  group: FigureGroup;
  status: 'ok' | 'failed';
  /** Why it failed or did not run (its error's first lines). */
  error?: string;
  seconds: number;
  /** os.loadavg() (1, 5 and 15 minutes) as the group started and as it ended. */
  loadAverageBefore: number[];
  loadAverageAfter: number[];
  figures: string[];
}

/**
 * Runs the groups of a bench run one after another: each group's figures are kept whatever the
 * others do, a group that throws is reported with its reason, and the load average is taken as each
 * starts and ends (a figure read on a machine other work was loading says so beside it).
 */
export function groupRunner(log: (line: string) => void, wanted: readonly FigureGroup[]) {
  const figures: (Figure & { group: FigureGroup })[] = [];
  const reports: GroupReport[] = [];
  const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));
  const done = (group: FigureGroup) => reports.some((r) => r.group === group);
  return {
    figures,
    reports,
    has: (group: FigureGroup) => wanted.includes(group),
    failed: (group: FigureGroup) => reports.some((r) => r.group === group && r.status === 'failed'),
    /** Runs `body` as `group` if the run asked for it and it has not been reported yet; answers whether it gave its figures. */
    async run(group: FigureGroup, body: () => Promise<Figure[]>, onError?: () => Promise<void>): Promise<boolean> {
      if (!wanted.includes(group) || done(group)) return false;
      const loadAverageBefore = load();
      const started = Date.now();
      log(`${group}: starting (load average ${loadAverageBefore.join(' ')})`);
      try {
        const got = await body();
        figures.push(...got.map((f) => ({ ...f, group })));
        reports.push({
          group,
          status: 'ok',
          seconds: Math.round((Date.now() - started) / 1000),
          loadAverageBefore,
          loadAverageAfter: load(),
          figures: got.map((f) => f.id),
        });
        log(`${group}: done in ${Math.round((Date.now() - started) / 1000)} s (load average ${load().join(' ')})`);
        return true;
      } catch (err) {
        console.error(`[bench] ${group} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        await onError?.().catch(() => {});
        reports.push({
          group,
          status: 'failed',
          error: reasonOf(err),
          seconds: Math.round((Date.now() - started) / 1000),
          loadAverageBefore,
          loadAverageAfter: load(),
          figures: [],
        });
        return false;
      }
    },
    /** Every asked-for group of `groups` not reported yet fails, without running, for `why`. */
    fail(groups: readonly FigureGroup[], why: unknown) {
      for (const group of groups) {
        if (!wanted.includes(group) || done(group)) continue;
        const now = load();
        reports.push({
          group,
          status: 'failed',
          error: reasonOf(why),
          seconds: 0,
          loadAverageBefore: now,
          loadAverageAfter: now,
          figures: [],
        });
        log(`${group}: not run: ${reasonOf(why)}`);
      }
    },
  };
}

/** An error's message, its first lines only (a child's whole output may follow them). */
export function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text.trim().split('\n');
  return lines.length > 6 ? `${lines.slice(0, 6).join('\n')}\n…` : lines.join('\n');
}

/** The groups' table printed after the figures': how each went and the load around it. */
export function renderGroups(reports: readonly GroupReport[]): string {
  const fmt = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
  const rows = reports.map((r) => [
    r.group,
    r.status,
    `${r.seconds}`,
    fmt(r.loadAverageBefore),
    fmt(r.loadAverageAfter),
    `${r.figures.length}`,
  ]);
  const head = ['group', 'status', 's', 'load before (1/5/15 min)', 'load after', 'figures'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const failures = reports.filter((r) => r.error).map((r) => `- ${r.group} failed: ${r.error!.replace(/\n/g, '\n    ')}`);
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ...(failures.length ? ['', ...failures] : [])].join('\n');
}
