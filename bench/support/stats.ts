/** Median of a list of measurements (the middle one, or the mean of the two middle ones). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The q-quantile (0..1) of samples, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export type Metrics = Record<string, number>;

export interface Rounds {
  ours: Metrics[];
  baseline: Metrics[];
}

/**
 * Ours, baseline, ours, baseline…: a machine whose load drifts (other processes, a warm cache)
 * shifts both sides alike, so the ratio of medians holds where absolute numbers do not.
 */
export async function interleaved(
  rounds: number,
  ours: (round: number) => Promise<Metrics>,
  baseline: (round: number) => Promise<Metrics>,
): Promise<Rounds> {
  const out: Rounds = { ours: [], baseline: [] };
  for (let round = 0; round < rounds; round++) {
    out.ours.push(await ours(round));
    out.baseline.push(await baseline(round));
  }
  return out;
}

export const medianOf = (list: readonly Metrics[], key: string) => median(list.map((m) => m[key] ?? Number.NaN));
