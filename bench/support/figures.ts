import { median, medianOf, type Rounds } from './stats';

/** One line of the bench's table: a figure of ours against the baseline measured in the same run. */
export interface Figure {
  id: string;
  title: string;
  unit: string;
  /** Which way is better: the ratio reads as ours/baseline either way. */
  better: 'higher' | 'lower';
  ours: number;
  baseline: number;
  ratio: number;
  /** Each round's value, ours and baseline, in the order they ran. */
  rounds: { ours: number[]; baseline: number[] };
  /** What the figure includes: which processes, which work, which load. */
  includes: string;
  /** What the baseline is. */
  baselineIs: string;
  /** Where ours' figure goes, part by part (a CPU figure read from a profile), and how that was measured. */
  breakdown?: { parts: BreakdownPart[]; method: string };
}

export interface BreakdownPart {
  where: string;
  /** Share of the whole (0..1). */
  share: number;
  /** The share of ours' figure, in its unit. */
  value: number;
}

export function figureFrom(rounds: Rounds, key: string, meta: Omit<Figure, 'ours' | 'baseline' | 'ratio' | 'rounds'>): Figure {
  const ours = medianOf(rounds.ours, key);
  const baseline = medianOf(rounds.baseline, key);
  return {
    ...meta,
    ours,
    baseline,
    ratio: baseline === 0 ? Number.NaN : ours / baseline,
    rounds: { ours: rounds.ours.map((m) => m[key] ?? Number.NaN), baseline: rounds.baseline.map((m) => m[key] ?? Number.NaN) },
  };
}

const fmt = (n: number) => (Number.isNaN(n) ? 'n/a' : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));

export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** A figure's rounds as min, median and max per side, and how many rounds there were. */
export function spreadOf(f: Pick<Figure, 'rounds'>): { rounds: number; ours: Spread; baseline: Spread } {
  const of = (values: readonly number[]): Spread => {
    const known = values.filter((v) => !Number.isNaN(v));
    return known.length === 0
      ? { min: Number.NaN, median: Number.NaN, max: Number.NaN }
      : { min: Math.min(...known), median: median(known), max: Math.max(...known) };
  };
  return { rounds: Math.min(f.rounds.ours.length, f.rounds.baseline.length), ours: of(f.rounds.ours), baseline: of(f.rounds.baseline) };
}

/** The table printed at the end of a run: each side's median with its rounds' min and max. */
export function renderTable(figures: readonly Figure[]): string {
  const range = (s: Spread) => `${fmt(s.min)}–${fmt(s.max)}`;
  const rows = figures.map((f) => {
    const spread = spreadOf(f);
    return [
      f.title,
      f.unit,
      fmt(f.ours),
      range(spread.ours),
      fmt(f.baseline),
      range(spread.baseline),
      `${fmt(f.ratio)}x`,
      `${spread.rounds}`,
      f.better === 'higher' ? 'higher' : 'lower',
    ];
  });
  const head = ['figure', 'unit', 'ours', 'ours min–max', 'baseline', 'base min–max', 'ours/base', 'rounds', 'better'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const notes = figures.map((f) => `- ${f.title}: ${f.includes} Baseline: ${f.baselineIs}`);
  const breakdowns = figures.flatMap((f) =>
    f.breakdown
      ? [
          '',
          `Where ${f.title} goes (${f.breakdown.method}):`,
          ...f.breakdown.parts.map(
            (p) => `  ${`${(p.share * 100).toFixed(1)} %`.padStart(7)}  ${fmt(p.value).padStart(6)} ${f.unit}  ${p.where}`,
          ),
        ]
      : [],
  );
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), '', ...notes, ...breakdowns].join('\n');
}
