/**
 * Seeded nonparametric bootstrap: resample n units with replacement, recompute a statistic, take percentile
 * intervals. Resamples on which the statistic is undefined (e.g. one class only for AUROC) are skipped and
 * counted; the interval is taken over the defined ones. Percentiles interpolate linearly between order statistics
 * (Hyndman–Fan type 7, the default of R and NumPy).
 */
import { badInput, createRng } from "../core";

export const DEFAULT_RESAMPLES = 10_000;
export const DEFAULT_LEVEL = 0.95;

export interface BootstrapOptions {
  seed: number | string;
  /** Extra path for createRng, so different uses of one seed draw independent streams. */
  path?: Array<string | number>;
  resamples?: number;
  /** Confidence level of the percentile interval. */
  level?: number;
}

export interface BootstrapDraws {
  /** Defined statistic values, one per kept resample, in draw order. */
  values: number[];
  skipped: number;
}

export type Interval = [number, number];

/** `statistic` receives the indices (0 … n−1, with repeats) of one resample and returns null when undefined. */
export function bootstrapDraws(
  n: number,
  statistic: (indices: readonly number[]) => number | null,
  options: BootstrapOptions,
): BootstrapDraws {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw badInput(`bootstrap resamples must be a positive integer, got ${resamples}`, {
      field: "resamples",
    });
  }
  if (!Number.isInteger(n) || n < 1) throw badInput(`bootstrap needs at least one unit, got ${n}`);
  const rng = createRng(options.seed, "bootstrap", ...(options.path ?? []));
  const values: number[] = [];
  let skipped = 0;
  const indices = new Array<number>(n);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) indices[i] = rng.int(n);
    const value = statistic(indices);
    if (value === null || !Number.isFinite(value)) skipped += 1;
    else values.push(value);
  }
  return { values, skipped };
}

/** The two-sided percentile interval of `values` at `level`; null when there are no values. */
export function percentileInterval(values: readonly number[], level = DEFAULT_LEVEL): Interval | null {
  if (!(level > 0 && level < 1))
    throw badInput(`confidence level must be in (0, 1), got ${level}`, { field: "level" });
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return [quantileSorted(sorted, tail), quantileSorted(sorted, 1 - tail)];
}

export function quantileSorted(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  const low = sorted[below] as number;
  const high = sorted[above] as number;
  return low + (high - low) * (position - below);
}
