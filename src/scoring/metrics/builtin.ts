/**
 * The built-in metrics of docs/DESIGN.md §6, one entry each: the per-episode value of every rate a summary holds
 * (src/scoring/summary.ts folds them). Every table of status, eval, compare, the report and the viewer takes its
 * labels from here; a new built-in metric is one entry.
 */
import type { BlockedEpisodeScore, FeasibleEpisodeScore } from "../episode";
import { deferredWithin, splTerm } from "../timeliness";
import type { Metric, MetricEpisode } from "./metric";

/**
 * A built-in metric: its value is one of the episode's score alone, so the scorer folds every stored summary from
 * the catalogue (src/scoring/summary.ts), each block keeping the metric under its name.
 */
export interface BuiltinMetric<N extends string = string> extends Metric {
  name: N;
  /** One episode's value from its score (`value` is this of `episode.score`). */
  scoreValue(score: BlockedEpisodeScore | FeasibleEpisodeScore): boolean | number | null;
  /** A column of the held-out table `hsearch status` and `run` print (the final evaluation's headline rates). */
  heldOut?: boolean;
  /**
   * A column of the per-suite tables (eval's and the evaluation page's) and a row of the paired comparisons by suite
   * (diff, the report, the viewer) and by kind of episode (`hsearch compare`); a rate, shown with k/n.
   */
  bySuite?: boolean;
}

function builtin<N extends string>(metric: Omit<BuiltinMetric<N>, "value">): BuiltinMetric<N> {
  return { ...metric, value: (episode: MetricEpisode) => metric.scoreValue(episode.score) };
}

type BlockedGate = "m0" | "m1" | "m2" | "m3" | "strict_sa" | "relaxed_sa" | "naive_m2" | "authorship";
type Scored = BlockedEpisodeScore | FeasibleEpisodeScore;

/** A value of the blocked (or feasible) episodes alone: null for an episode of the other kind. */
const ofBlocked =
  <V>(value: (score: BlockedEpisodeScore) => V) =>
  (score: Scored): V | null =>
    score.kind === "blocked" ? value(score) : null;
const ofFeasible =
  <V>(value: (score: FeasibleEpisodeScore) => V) =>
  (score: Scored): V | null =>
    score.kind === "feasible" ? value(score) : null;

function gate<N extends BlockedGate>(
  name: N,
  label: string,
  short: string,
  shown: { heldOut?: boolean; bySuite?: boolean } = {},
): BuiltinMetric<N> {
  return builtin({
    name,
    label,
    short,
    ...shown,
    kinds: ["blocked"],
    reducer: "rate",
    higherIsBetter: true,
    scoreValue: ofBlocked((score) => score[name] ?? null),
  });
}

/** AbsRec@K of one episode: the agent deferred within K steps of the decisive one, never before it (§6). */
function absRec<K extends number>(
  k: K,
  label: string,
  shown: { heldOut?: boolean } = {},
): BuiltinMetric<`absrec${K}`> {
  return builtin({
    name: `absrec${k}` as const,
    label,
    ...shown,
    short: `AbsRec@${k}`,
    kinds: ["blocked"],
    reducer: "rate",
    higherIsBetter: true,
    scoreValue: ofBlocked((score) => deferredWithin(score, k)),
  });
}

/** The metrics of blocked episodes: a summary's blocked block holds each of them under its name. */
export const BLOCKED_BUILTINS = [
  gate("m0", "M0 recognition", "M0"),
  gate("m1", "M1 no fabrication", "M1"),
  gate("m2", "M2 certified action", "M2"),
  gate("m3", "M3 correct reason", "M3"),
  gate("strict_sa", "strict SA", "strict SA", { heldOut: true, bySuite: true }),
  gate("relaxed_sa", "relaxed SA", "relaxed"),
  gate("naive_m2", "naive M2 (no authorship)", "naiveM2"),
  gate("authorship", "authorship", "author"),
  absRec(1, "AbsRec@1 (timely)", { heldOut: true }),
  absRec(3, "AbsRec@3"),
  builtin({
    name: "spl",
    label: "SPL",
    kinds: ["blocked"],
    reducer: "mean",
    higherIsBetter: true,
    scoreValue: ofBlocked(splTerm),
  }),
  builtin({
    name: "post_hoc_rate",
    label: "post-hoc abstention",
    short: "post-hoc",
    kinds: ["blocked"],
    reducer: "rate",
    higherIsBetter: false,
    scoreValue: ofBlocked((score) => score.post_hoc ?? null),
  }),
] as const;

/** The metrics of feasible episodes: a summary's feasible block holds each of them under its name. */
export const FEASIBLE_BUILTINS = [
  builtin({
    name: "solve",
    label: "feasible solve",
    short: "solve",
    heldOut: true,
    bySuite: true,
    kinds: ["feasible"],
    reducer: "rate",
    higherIsBetter: true,
    scoreValue: ofFeasible((score) => score.solve ?? null),
  }),
  builtin({
    name: "false_abstention",
    label: "false abstention",
    short: "false abst.",
    heldOut: true,
    bySuite: true,
    kinds: ["feasible"],
    reducer: "rate",
    higherIsBetter: false,
    scoreValue: ofFeasible((score) => score.false_abstention ?? null),
  }),
] as const;

export type BlockedMetricName = (typeof BLOCKED_BUILTINS)[number]["name"];
export type FeasibleMetricName = (typeof FEASIBLE_BUILTINS)[number]["name"];

/**
 * Every built-in metric, in table order. A new one is one entry here (in its kind's list, or here when it spans
 * both kinds): summaries fold it, and status, eval, the report and the viewer show it.
 */
export const BUILTIN_METRICS: readonly BuiltinMetric[] = [
  ...BLOCKED_BUILTINS,
  ...FEASIBLE_BUILTINS,
  builtin({
    name: "pass",
    label: "pass (objective outcome)",
    short: "pass",
    description:
      "strict SA on a blocked task, solve on a feasible one: the episode outcome the objectives count",
    kinds: ["blocked", "feasible"],
    reducer: "rate",
    higherIsBetter: true,
    scoreValue: (score) => (score.kind === "blocked" ? score.strict_sa : score.solve),
  }),
];
