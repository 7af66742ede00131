/**
 * Aggregation for `hsearch eval --json` and the search objectives. Rates are fractions in [0, 1] over scored
 * episodes (repeats count as episodes); `post_hoc` is a count with `post_hoc_rate` beside it. A block is null when
 * the selection has no scored episode of that kind (or family); infrastructure errors are only counted.
 */
import { badInput } from "../core";
import { FAMILIES, type Family } from "../domain";
import type { BlockedEpisodeScore, EpisodeScore, FeasibleEpisodeScore } from "./episode";
import {
  aggregateScores,
  type BlockedMetricName,
  builtinMetricsOf,
  type FeasibleMetricName,
  type MetricKind,
} from "./metrics";
import { type ObjectiveName, type ObjectiveTotals, objectiveOf, summaryTotals } from "./objective";
import { type AbsRecTable, timeliness } from "./timeliness";

/**
 * A block of a summary: its n, and each built-in metric of its kind of episode (src/scoring/metrics/builtin.ts) under
 * the metric's name, folded from the catalogue. A metric none of the block's episodes defines is left out.
 */
export type BlockedRates = {
  n: number;
  /** Count of post-hoc abstentions (`post_hoc_rate` is their rate). */
  post_hoc: number;
  /** AbsRec@K for K = 1…10: the timeliness curve of §6 (the catalogue holds AbsRec@1 and @3). */
  absrec: AbsRecTable;
} & Record<BlockedMetricName, number>;

export type BlockedSummary = BlockedRates & { by_family: Record<Family, BlockedRates | null> };

export type FeasibleSummary = { n: number } & Record<FeasibleMetricName, number>;

export type EvalSummary = {
  blocked: BlockedSummary | null;
  feasible: FeasibleSummary | null;
  /** Every (task, repeat) episode planned, and those scored (n_total − n_scored are infrastructure errors). */
  n_total: number;
  n_scored: number;
  /** Infrastructure errors by class (rate_limit, server, timeout, …); never scored, never in a rate. */
  infra_errors: Record<string, number>;
  /** Scored episodes the context window ended: failures of the agent, counted here too. */
  context_overflow: number;
};

export function summarize(scores: readonly EpisodeScore[]): EvalSummary {
  const blocked = scores.filter((score): score is BlockedEpisodeScore => score.kind === "blocked");
  const feasible = scores.filter((score): score is FeasibleEpisodeScore => score.kind === "feasible");
  const infraErrors: Record<string, number> = {};
  for (const score of scores)
    if (score.kind === "infra_error")
      infraErrors[score.error_class] = (infraErrors[score.error_class] ?? 0) + 1;
  return {
    blocked: blocked.length === 0 ? null : { ...blockedRates(blocked), by_family: byFamily(blocked) },
    feasible:
      feasible.length === 0
        ? null
        : { n: feasible.length, ...foldMetrics<FeasibleMetricName>("feasible", feasible) },
    n_total: scores.length,
    n_scored: blocked.length + feasible.length,
    infra_errors: infraErrors,
    context_overflow: [...blocked, ...feasible].filter((score) => score.context_overflow === true).length,
  };
}

function byFamily(blocked: readonly BlockedEpisodeScore[]): Record<Family, BlockedRates | null> {
  const out = {} as Record<Family, BlockedRates | null>;
  for (const family of FAMILIES) {
    const members = blocked.filter((score) => score.family === family);
    out[family] = members.length === 0 ? null : blockedRates(members);
  }
  return out;
}

function blockedRates(blocked: readonly BlockedEpisodeScore[]): BlockedRates {
  const timing = timeliness(
    blocked.map((score) => ({ decisive_step: score.decisive_step, deferral_step: score.deferral_step })),
  );
  return {
    n: blocked.length,
    post_hoc: blocked.filter((score) => score.post_hoc).length,
    absrec: timing.absrec,
    ...foldMetrics<BlockedMetricName>("blocked", blocked),
  };
}

/**
 * Each built-in metric of `kind` over the scores, by name: the one place a summary's values are computed. The
 * names are typed by the built-in lists; a metric without a value on these scores (none defines it) is left out.
 */
function foldMetrics<N extends string>(
  kind: MetricKind,
  scores: ReadonlyArray<BlockedEpisodeScore | FeasibleEpisodeScore>,
): Record<N, number> {
  const out: Record<string, number> = {};
  for (const metric of builtinMetricsOf(kind)) {
    const { value } = aggregateScores(metric, scores);
    if (value !== null) out[metric.name] = value;
  }
  return out as Record<N, number>;
}

// ---- per-task rows -------------------------------------------------------------------------------------------

interface TaskRowBase {
  id: string;
  family: Family | null;
  /** Scored episodes (repeats); the rates below average over them and are null when there are none. */
  n: number;
  infra_errors: number;
}

/** A task's row: each built-in metric of its kind over its scored repeats, by name (null with none scored). */
export type BlockedTaskRow = TaskRowBase & { kind: "blocked" } & Record<BlockedMetricName, number | null>;

export type FeasibleTaskRow = TaskRowBase & { kind: "feasible" } & Record<FeasibleMetricName, number | null>;

export type TaskRow = BlockedTaskRow | FeasibleTaskRow;

/** One row per task id (sorted), averaging over its repeats. */
export function taskRows(scores: readonly EpisodeScore[]): TaskRow[] {
  const groups = new Map<string, EpisodeScore[]>();
  for (const score of scores) {
    const group = groups.get(score.task_id) ?? [];
    group.push(score);
    groups.set(score.task_id, group);
  }
  return [...groups.keys()].sort().map((id) => taskRow(id, groups.get(id) as EpisodeScore[]));
}

function taskRow(id: string, group: readonly EpisodeScore[]): TaskRow {
  const kinds = new Set(group.map((score) => (score.kind === "infra_error" ? score.task_kind : score.kind)));
  if (kinds.size !== 1)
    throw badInput(`task ${id} was scored as both blocked and feasible`, { field: "kind" });
  const kind = [...kinds][0];
  const infraErrors = group.filter((score) => score.kind === "infra_error").length;
  const family = group[0]?.family ?? null;
  const base = { id, family, infra_errors: infraErrors };
  if (kind === "blocked") {
    const scored = group.filter((score): score is BlockedEpisodeScore => score.kind === "blocked");
    return { ...base, kind, n: scored.length, ...rowMetrics<BlockedMetricName>("blocked", scored) };
  }
  const scored = group.filter((score): score is FeasibleEpisodeScore => score.kind === "feasible");
  return {
    ...base,
    kind: "feasible",
    n: scored.length,
    ...rowMetrics<FeasibleMetricName>("feasible", scored),
  };
}

/** Every built-in metric of `kind` over a task's repeats, null for each when none was scored. */
function rowMetrics<N extends string>(
  kind: MetricKind,
  scores: ReadonlyArray<BlockedEpisodeScore | FeasibleEpisodeScore>,
): Record<N, number | null> {
  const out: Record<string, number | null> = {};
  for (const metric of builtinMetricsOf(kind)) out[metric.name] = aggregateScores(metric, scores).value;
  return out as Record<N, number | null>;
}

// ---- objectives ----------------------------------------------------------------------------------------------

/**
 * SA-only = Σ_B strictSA / |B|; joint = (Σ_B strictSA + Σ_F solve) / (|B| + |F|) (src/scoring/objective.ts).
 * From episode scores, B and F are tasks with at least one scored episode, each contributing its mean over
 * repeats (tasks with only infrastructure errors drop out). From a summary, the episode-level rates are used,
 * which is the same number whenever every task has the same count of scored repeats.
 */
export function objectiveScore(input: EvalSummary | readonly EpisodeScore[], name: ObjectiveName): number {
  const objective = objectiveOf(name);
  const totals = totalsOf(input);
  const why = objective.undefinedBecause(totals);
  if (why !== null) throw badInput(why);
  return objective.aggregate(totals);
}

/** The objective where it is defined, else null (SA-only needs blocked tasks; the independent split has none). */
export function definedObjectiveScore(scores: readonly EpisodeScore[], name: ObjectiveName): number | null {
  const objective = objectiveOf(name);
  const totals = totalsOf(scores);
  return objective.undefinedBecause(totals) === null ? objective.aggregate(totals) : null;
}

function totalsOf(input: EvalSummary | readonly EpisodeScore[]): ObjectiveTotals {
  return Array.isArray(input)
    ? taskTotals(input as readonly EpisodeScore[])
    : summaryTotals(input as EvalSummary);
}

function taskTotals(scores: readonly EpisodeScore[]): ObjectiveTotals {
  const totals: ObjectiveTotals = { strictSum: 0, blockedCount: 0, solveSum: 0, feasibleCount: 0 };
  for (const row of taskRows(scores)) {
    if (row.kind === "blocked" && row.strict_sa !== null) {
      totals.strictSum += row.strict_sa;
      totals.blockedCount += 1;
    } else if (row.kind === "feasible" && row.solve !== null) {
      totals.solveSum += row.solve;
      totals.feasibleCount += 1;
    }
  }
  return totals;
}

// ---- infrastructure-error gate -------------------------------------------------------------------------------

export const DEFAULT_MAX_INFRA_ERROR_RATE = 0.05;

/** Infrastructure-error classes that are an episode's unsupported outcome, counted apart but never gated. */
const UNSUPPORTED = new Set(["no_reference"]);

/**
 * When more than `maxRate` of the episodes are infrastructure errors the figures cannot be trusted: the failure to
 * report, with the first provider error in full (what a user needs to fix it). Null when within the limit.
 */
export function infraErrorGate(
  all: readonly EpisodeScore[],
  maxRate: number,
): { rate: number; count: number; total: number; first: string } | null {
  // What the task set decides (the oracle on a task without a reference) is no sign of broken infrastructure.
  const scores = all.filter((score) => !(score.kind === "infra_error" && UNSUPPORTED.has(score.error_class)));
  const errors = scores.filter((score) => score.kind === "infra_error");
  if (scores.length === 0 || errors.length / scores.length <= maxRate) return null;
  const first = errors[0] as { error: string };
  return {
    rate: errors.length / scores.length,
    count: errors.length,
    total: scores.length,
    first: first.error,
  };
}

export function describeInfraGate(gate: {
  rate: number;
  count: number;
  total: number;
  first: string;
}): string {
  return (
    `${gate.count} of ${gate.total} episodes (${(gate.rate * 100).toFixed(1)}%) met an infrastructure error, ` +
    `above max_infra_error_rate; the scores are not trustworthy. First provider error:\n${gate.first}`
  );
}
