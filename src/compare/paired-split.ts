/**
 * Two harnesses' episodes of one split paired task by task (same task id and repeat, both scored): per group a
 * 2×2 table of outcomes, the paired Δ (B − A) with its 95% interval, McNemar on the discordant pairs, and the
 * episodes that flipped. Pure: rollout records in, numbers out.
 */
import {
  builtinMetric,
  bySuiteMetrics,
  episodeHas,
  matchEpisodes,
  type PairedOutcome,
  pairedOutcome,
} from "../scoring";
import type { Purpose, RolloutRecord } from "../store/types";

/** "pass", or a built-in metric the catalogue marks per suite (strict SA, solve, false abstention). */
export type PairedMetric = string;

/** One group's outcome over its pairs (the interval and McNemar of src/scoring/pairing). */
export interface PairedRow extends PairedOutcome {
  /** "all", "blocked", "feasible" or a family. */
  group: string;
  /** pass = the objective's outcome of each episode (strict SA on a blocked task, solve on a feasible one). */
  metric: PairedMetric;
  /** False abstention is better lower. */
  lowerIsBetter: boolean;
  /** Episodes where A / B had the metric. */
  a: number;
  b: number;
}

export interface PairedFlip {
  task_id: string;
  repeat: number;
  kind: string;
  family: string | null;
  /** B passes where A failed ("gain") or the reverse ("loss"). */
  direction: "gain" | "loss";
  aKey: string;
  bKey: string;
}

export interface PairedSplit {
  purpose: Purpose;
  /** Episodes scored on both sides. */
  paired: number;
  /** Scored episodes of one side only (a task or repeat the other did not run, or an infrastructure error there). */
  onlyA: number;
  onlyB: number;
  /** Distinct tasks among the pairs. */
  tasks: number;
  rows: PairedRow[];
  flips: PairedFlip[];
}

const scored = (r: RolloutRecord) => r.scores.kind !== "infra_error";

/** The objective's outcome of one episode: strict SA on a blocked task, solve on a feasible one. */
export function episodePassed(rollout: RolloutRecord): boolean {
  return rollout.kind === "blocked" ? rollout.scores.strict_sa === true : rollout.scores.solve === true;
}

function has(metric: PairedMetric, rollout: RolloutRecord): boolean {
  return metric === "pass" ? episodePassed(rollout) : episodeHas(builtinMetric(metric), rollout.scores);
}

function row(
  group: string,
  metric: PairedMetric,
  pairs: ReadonlyArray<readonly [RolloutRecord, RolloutRecord]>,
): PairedRow {
  const outcome = pairedOutcome(pairs, (r) => has(metric, r));
  return {
    group,
    metric,
    lowerIsBetter: !builtinMetric(metric).higherIsBetter,
    a: outcome.first,
    b: outcome.second,
    ...outcome,
  };
}

export function pairSplit(
  purpose: Purpose,
  aRollouts: readonly RolloutRecord[],
  bRollouts: readonly RolloutRecord[],
): PairedSplit {
  const { pairs, onlyFirst, onlySecond } = matchEpisodes(aRollouts.filter(scored), bRollouts.filter(scored));
  const where = (keep: (r: RolloutRecord) => boolean) => pairs.filter(([a]) => keep(a));
  const blocked = where((r) => r.kind === "blocked");
  const rows: PairedRow[] = [row("all", "pass", pairs)];
  // Per kind of episode, each metric the catalogue marks per suite on the episodes it is defined on.
  for (const metric of bySuiteMetrics()) {
    const defined = where((r) => metric.kinds.some((kind) => kind === r.kind));
    if (defined.length > 0)
      rows.push(row(metric.kinds.length === 1 ? String(metric.kinds[0]) : "all", metric.name, defined));
  }
  const families = [...new Set(blocked.flatMap(([a]) => (a.family ? [a.family] : [])))].sort();
  for (const family of families)
    rows.push(
      row(
        family,
        "strict_sa",
        where((r) => r.kind === "blocked" && r.family === family),
      ),
    );
  const flips: PairedFlip[] = pairs
    .filter(([a, b]) => episodePassed(a) !== episodePassed(b))
    .map(([a, b]) => ({
      task_id: a.task_id,
      repeat: a.repeat,
      kind: a.kind,
      family: a.family,
      direction: episodePassed(b) ? "gain" : "loss",
      aKey: a.key,
      bKey: b.key,
    }));
  return {
    purpose,
    paired: pairs.length,
    onlyA: onlyFirst,
    onlyB: onlySecond,
    tasks: new Set(pairs.map(([a]) => a.task_id)).size,
    rows,
    flips,
  };
}
