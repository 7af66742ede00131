/**
 * Paired tests for comparing two harnesses on the same tasks and seeds.
 * - Exact two-sided McNemar: with b = #(A+, B−) and c = #(A−, B+) discordant pairs, under H0 each discordant pair
 *   goes either way with probability ½, so p = min(1, 2 · P[Binomial(b + c, ½) ≤ min(b, c)]). One rule at every count: the acceptance rules decide
 *   on this p, and the exact conditional test never exceeds its level, where the χ² approximation does at small
 *   counts. It is conservative (Fagerland, Lydersen & Laake, BMC Med Res Methodol 2013, 13:91 find the mid-p
 *   version as safe in practice and more powerful); a comparison printed here can only understate a change.
 * - Paired bootstrap of a mean difference: resample paired units, mean of (a_i − b_i), seeded percentile interval;
 *   its two-sided p-value is 2 · min((1 + #means ≤ 0), (1 + #means ≥ 0)) / (1 + resamples), capped at 1 (about the
 *   smallest α at which the matching percentile interval excludes 0; the add-one keeps a Monte Carlo p above 0).
 */
import { badInput } from "../../core";
import { type BootstrapOptions, bootstrapDraws, type Interval, percentileInterval } from "../bootstrap";

export interface McNemarResult {
  /** Pairs where the first is positive and the second negative. */
  b: number;
  /** Pairs where the first is negative and the second positive. */
  c: number;
  discordant: number;
  p_value: number;
}

export function mcnemarExact(b: number, c: number): McNemarResult {
  for (const [name, value] of [
    ["b", b],
    ["c", c],
  ] as const) {
    if (!Number.isInteger(value) || value < 0)
      throw badInput(`McNemar ${name} must be a count, got ${value}`);
  }
  const n = b + c;
  const pValue = n === 0 ? 1 : Math.min(1, 2 * binomialHalfCdf(Math.min(b, c), n));
  return { b, c, discordant: n, p_value: pValue };
}

/** McNemar on paired outcomes (index i of both arrays is the same task and seed). */
export function mcnemarFromPairs(first: readonly boolean[], second: readonly boolean[]): McNemarResult {
  checkSameLength(first.length, second.length);
  let b = 0;
  let c = 0;
  first.forEach((left, index) => {
    const right = second[index] as boolean;
    if (left && !right) b += 1;
    if (!left && right) c += 1;
  });
  return mcnemarExact(b, c);
}

/** P[X ≤ k] for X ~ Binomial(n, ½): exact integer sums for n ≤ 1000, log space beyond. */
function binomialHalfCdf(k: number, n: number): number {
  if (n <= 1000) {
    let coefficient = 1n;
    let sum = 1n;
    for (let i = 1; i <= k; i++) {
      coefficient = (coefficient * BigInt(n - i + 1)) / BigInt(i);
      sum += coefficient;
    }
    return Number(sum) / 2 ** n;
  }
  let logTerm = -n * Math.LN2;
  let total = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log(n - i + 1) - Math.log(i);
    total += Math.exp(logTerm);
  }
  return total;
}

export interface PairedBootstrapResult {
  n: number;
  /** mean(a − b) on the full sample. */
  mean_difference: number;
  ci: Interval;
  p_value: number;
  resamples: number;
}

export function pairedBootstrapMeanDifference(
  first: readonly number[],
  second: readonly number[],
  options: BootstrapOptions,
): PairedBootstrapResult {
  checkSameLength(first.length, second.length);
  if (first.length === 0) throw badInput("a paired bootstrap needs at least one pair");
  const differences = first.map((value, index) => value - (second[index] as number));
  if (differences.some((value) => !Number.isFinite(value)))
    throw badInput("paired values must be finite numbers");
  const mean = (indices: readonly number[]) =>
    indices.reduce((sum, index) => sum + (differences[index] as number), 0) / indices.length;
  const draws = bootstrapDraws(differences.length, mean, {
    ...options,
    path: ["paired-mean", ...(options.path ?? [])],
  });
  const values = draws.values;
  const atOrBelow = (1 + values.filter((value) => value <= 0).length) / (1 + values.length);
  const atOrAbove = (1 + values.filter((value) => value >= 0).length) / (1 + values.length);
  return {
    n: differences.length,
    mean_difference: mean(differences.map((_, index) => index)),
    ci: percentileInterval(values, options.level) as Interval,
    p_value: Math.min(1, 2 * Math.min(atOrBelow, atOrAbove)),
    resamples: values.length,
  };
}

function checkSameLength(first: number, second: number): void {
  if (first !== second) throw badInput(`paired samples differ in length: ${first} vs ${second}`);
}
