/**
 * Belief calibration (docs/DESIGN.md §6, the "know" probe): each report is the model's P(feasible) for one task, scored
 * against whether the task is feasible (the positive class).
 * - AUROC: probability that a random feasible task gets a higher P(feasible) than a random blocked one, ties ½
 *   (Mann–Whitney with average ranks). Undefined with one class only.
 * - Brier: mean (p − y)², y = 1 for feasible.
 * - ECE₁₀: 10 equal-width bins [0, .1), [.1, .2), …, [.9, 1] (left-closed; the last bin also holds p = 1);
 *   Σ_b (n_b / N) · |acc_b − conf_b| with acc_b the share of feasible tasks and conf_b the mean p in bin b.
 * Reports with p_feasible = null (the model gave none) are not valid and are left out (and counted); a number
 * outside [0, 1] is bad input. Undefined values are `{value: null, reason}`, never NaN or 0.
 * Intervals: seeded percentile bootstrap over valid reports; the paired version resamples blocked–feasible
 * source pairs (all reports sharing a `pair` key move together) and recomputes both harnesses on the same pairs.
 */
import { badInput } from "../core";
import type { Task } from "../domain";
import { type BootstrapOptions, bootstrapDraws, type Interval, percentileInterval } from "./bootstrap";

export interface BeliefReport {
  task_id: string;
  /** The source pair: a feasible task's id, and the same id (its `source`) on each of its blocked variants. */
  pair: string;
  feasible: boolean;
  p_feasible: number | null;
}

/** The source-pair key of a task: a blocked task's feasible counterpart (`source`), or a feasible task's own id. */
export function pairKey(task: Pick<Task, "id" | "kind" | "source">): string {
  if (task.kind === "feasible") return task.id;
  if (task.source === undefined || task.source === "") {
    throw badInput(`blocked task ${task.id} has no source (feasible counterpart) to pair with`, {
      field: "source",
    });
  }
  return task.source;
}

export type PointEstimate = { value: number } | { value: null; reason: string };

export type Estimate =
  | { value: number; ci: Interval | null; ci_reason?: string; resamples_skipped: number }
  | { value: null; reason: string };

export type CalibrationMetric = "auroc" | "brier" | "ece";

export const CALIBRATION_METRICS: readonly CalibrationMetric[] = ["auroc", "brier", "ece"];
export const ECE_BINS = 10;

interface Point {
  p: number;
  y: 0 | 1;
}

export function validPoints(reports: readonly BeliefReport[]): Point[] {
  const points: Point[] = [];
  for (const report of reports) {
    const p = report.p_feasible;
    if (p === null) continue;
    if (!Number.isFinite(p) || p < 0 || p > 1) {
      throw badInput(`task ${report.task_id}: p_feasible must be in [0, 1], got ${p}`, {
        field: "p_feasible",
      });
    }
    points.push({ p, y: report.feasible ? 1 : 0 });
  }
  return points;
}

const NO_VALID = { value: null, reason: "no valid reports" } as const;

export function auroc(reports: readonly BeliefReport[]): PointEstimate {
  return aurocOf(validPoints(reports));
}

export function brier(reports: readonly BeliefReport[]): PointEstimate {
  return brierOf(validPoints(reports));
}

export function ece(reports: readonly BeliefReport[]): PointEstimate {
  return eceOf(validPoints(reports));
}

function aurocOf(points: readonly Point[]): PointEstimate {
  if (points.length === 0) return NO_VALID;
  const positives = points.filter((point) => point.y === 1).length;
  const negatives = points.length - positives;
  if (positives === 0 || negatives === 0) {
    return {
      value: null,
      reason: `one class only (${positives === 0 ? "no feasible" : "no blocked"} tasks)`,
    };
  }
  const sorted = [...points].sort((a, b) => a.p - b.p);
  let positiveRankSum = 0;
  for (let start = 0; start < sorted.length; ) {
    let end = start;
    while (end + 1 < sorted.length && (sorted[end + 1] as Point).p === (sorted[start] as Point).p) end++;
    const averageRank = (start + end) / 2 + 1;
    for (let i = start; i <= end; i++) if ((sorted[i] as Point).y === 1) positiveRankSum += averageRank;
    start = end + 1;
  }
  const u = positiveRankSum - (positives * (positives + 1)) / 2;
  return { value: u / (positives * negatives) };
}

function brierOf(points: readonly Point[]): PointEstimate {
  if (points.length === 0) return NO_VALID;
  let total = 0;
  for (const { p, y } of points) total += (p - y) ** 2;
  return { value: total / points.length };
}

export function eceBin(p: number): number {
  return Math.min(Math.floor(p * ECE_BINS), ECE_BINS - 1);
}

function eceOf(points: readonly Point[]): PointEstimate {
  if (points.length === 0) return NO_VALID;
  const count = new Array<number>(ECE_BINS).fill(0);
  const confidence = new Array<number>(ECE_BINS).fill(0);
  const positives = new Array<number>(ECE_BINS).fill(0);
  for (const { p, y } of points) {
    const bin = eceBin(p);
    count[bin] = (count[bin] as number) + 1;
    confidence[bin] = (confidence[bin] as number) + p;
    positives[bin] = (positives[bin] as number) + y;
  }
  let total = 0;
  for (let bin = 0; bin < ECE_BINS; bin++) {
    const n = count[bin] as number;
    if (n > 0) total += Math.abs((positives[bin] as number) - (confidence[bin] as number));
  }
  // Σ (n_b/N)·|pos_b/n_b − conf_b/n_b| = Σ |pos_b − conf_b| / N
  return { value: total / points.length };
}

const METRIC_OF: Record<CalibrationMetric, (points: readonly Point[]) => PointEstimate> = {
  auroc: aurocOf,
  brier: brierOf,
  ece: eceOf,
};

function metricOf(metric: CalibrationMetric): (points: readonly Point[]) => PointEstimate {
  const compute = METRIC_OF[metric];
  if (compute === undefined) throw badInput(`unknown calibration metric '${metric}'`, { field: "metric" });
  return compute;
}

export interface CalibrationReport {
  n: number;
  n_valid: number;
  auroc: Estimate;
  brier: Estimate;
  ece: Estimate;
}

/** Point values with bootstrap percentile intervals (all metrics use the same resamples of the valid reports). */
export function calibrationReport(
  reports: readonly BeliefReport[],
  options: BootstrapOptions,
): CalibrationReport {
  const points = validPoints(reports);
  const estimate = (metric: CalibrationMetric): Estimate => {
    const compute = metricOf(metric);
    const point = compute(points);
    if (point.value === null) return point;
    const draws = bootstrapDraws(
      points.length,
      (indices) => compute(indices.map((index) => points[index] as Point)).value,
      { ...options, path: ["calibration", ...(options.path ?? [])] },
    );
    return withInterval(point.value, draws.values, draws.skipped, options.level);
  };
  return {
    n: reports.length,
    n_valid: points.length,
    auroc: estimate("auroc"),
    brier: estimate("brier"),
    ece: estimate("ece"),
  };
}

export interface PairedDifference {
  metric: CalibrationMetric;
  pairs: number;
  /** metric(a) − metric(b) on all pairs, with its paired-bootstrap interval. */
  difference: Estimate;
}

/**
 * Paired bootstrap of metric(a) − metric(b) for two harnesses' reports on the same tasks, resampling source
 * pairs. Both sides must cover the same pair keys.
 */
export function pairedCalibrationDifference(
  a: readonly BeliefReport[],
  b: readonly BeliefReport[],
  metric: CalibrationMetric,
  options: BootstrapOptions,
): PairedDifference {
  const compute = metricOf(metric);
  const groupsA = groupByPair(a);
  const groupsB = groupByPair(b);
  const keys = [...groupsA.keys()].sort();
  const keysB = [...groupsB.keys()].sort();
  if (keys.length !== keysB.length || keys.some((key, index) => key !== keysB[index])) {
    throw badInput("paired calibration needs both harnesses' reports on the same source pairs", {
      field: "pair",
    });
  }
  const pointsA = keys.map((key) => validPoints(groupsA.get(key) as BeliefReport[]));
  const pointsB = keys.map((key) => validPoints(groupsB.get(key) as BeliefReport[]));
  const differenceOn = (indices: readonly number[]): PointEstimate => {
    const left = compute(indices.flatMap((index) => pointsA[index] as Point[]));
    if (left.value === null) return { value: null, reason: `first harness: ${left.reason}` };
    const right = compute(indices.flatMap((index) => pointsB[index] as Point[]));
    if (right.value === null) return { value: null, reason: `second harness: ${right.reason}` };
    return { value: left.value - right.value };
  };
  if (keys.length === 0) return { metric, pairs: 0, difference: NO_VALID };
  const all = differenceOn(keys.map((_, index) => index));
  if (all.value === null) return { metric, pairs: keys.length, difference: all };
  const draws = bootstrapDraws(keys.length, (indices) => differenceOn(indices).value, {
    ...options,
    path: ["calibration-paired", ...(options.path ?? [])],
  });
  return {
    metric,
    pairs: keys.length,
    difference: withInterval(all.value, draws.values, draws.skipped, options.level),
  };
}

function groupByPair(reports: readonly BeliefReport[]): Map<string, BeliefReport[]> {
  const groups = new Map<string, BeliefReport[]>();
  for (const report of reports) {
    const group = groups.get(report.pair) ?? [];
    group.push(report);
    groups.set(report.pair, group);
  }
  return groups;
}

function withInterval(value: number, draws: readonly number[], skipped: number, level?: number): Estimate {
  const ci = percentileInterval(draws, level);
  return ci === null
    ? { value, ci: null, ci_reason: "the metric was undefined on every resample", resamples_skipped: skipped }
    : { value, ci, resamples_skipped: skipped };
}
