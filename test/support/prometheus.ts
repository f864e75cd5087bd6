import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensurePromtool } from '../../tools/dev/promtool';

const run = promisify(execFile);

/** Runs promtool; its exit code and everything it printed (it writes findings to both streams). */
export async function promtool(args: string[], options: { input?: string; cwd?: string } = {}): Promise<{ code: number; output: string }> {
  const child = run(ensurePromtool(), args, { maxBuffer: 16 * 1024 * 1024, cwd: options.cwd });
  child.child.stdin!.end(options.input ?? '');
  try {
    const { stdout, stderr } = await child;
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, output: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression selects. Enough of PromQL for dashboards and rules: strings,
 * label matchers, ranges and grouping lists are removed first, then every identifier that is neither
 * a function or aggregation (followed by `(`) nor a keyword is a metric name. promtool has already
 * parsed the expression, so what is left is well-formed.
 */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+-?\w+/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w.:])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()/g)) {
    if (!KEYWORDS.has(m[1]!.toLowerCase())) names.add(m[1]!);
  }
  return [...names];
}

/**
 * Every series name a /metrics exposition can hold: the samples it has, and for each family announced
 * by `# TYPE` (even one without series yet) the names its type gives it.
 */
export function exposedSeriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      names.add(name!);
      if (kind === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name! + s);
      if (kind === 'summary') for (const s of ['_sum', '_count']) names.add(name! + s);
    } else if (line && !line.startsWith('#')) {
      names.add(/^[a-zA-Z_:][\w:]*/.exec(line)![0]);
    }
  }
  return names;
}
