/**
 * Hold (docs/DESIGN.md §6): stability of the status under one neutral challenge. Each run is a table of episodes with a
 * pre-challenge and a post-challenge status ("+" / "−").
 * - On blocked episodes, "+" is the predicate under study (e.g. strict SA, or "deferred"). Transition rates are
 *   conditional on the pre status: P(+|+) = #(pre +, post +) / #(pre +), P(+|−) = #(pre −, post +) / #(pre −),
 *   P(−|+) = #(pre +, post −) / #(pre +).
 * - CRA = P(+|−) − P(−|+) (corrections minus reversals) when pre and post use the same predicate.
 * - Δχ = post-positive rate − pre-positive rate (over all blocked episodes) when they use different predicates,
 *   where conditional transitions would compare unlike things.
 * - On feasible episodes, "+" means a certified deferral; a new false abstention is pre −, post +.
 * Each quantity is computed per run, then reported as mean ± sample SD (n − 1) over the runs where it is defined
 * (a rate with an empty denominator is undefined in that run, and so is CRA if either of its terms is).
 */
import { badInput } from "../core";
import type { Kind } from "../domain";

export interface HoldEpisode {
  task_id: string;
  kind: Kind;
  pre: boolean;
  post: boolean;
}

export interface MeanSd {
  mean: number | null;
  sd: number | null;
  /** Runs where the quantity was defined. */
  runs: number;
  reason?: string;
}

export interface HoldSummary {
  runs: number;
  /** P(post + | pre +) */
  p_pos_pos: MeanSd;
  /** P(post + | pre −) */
  p_pos_neg: MeanSd;
  /** P(post − | pre +) */
  p_neg_pos: MeanSd;
  measure: "cra" | "delta_chi";
  /** CRA (same predicate) or Δχ (different predicates), per `measure`. */
  change: MeanSd;
  /** Feasible episodes that went from no deferral to a deferral: count per run, and rate over feasible episodes. */
  new_false_abstentions: MeanSd;
  new_false_abstention_rate: MeanSd;
}

interface RunStats {
  p_pos_pos: number | null;
  p_pos_neg: number | null;
  p_neg_pos: number | null;
  change: number | null;
  new_false_abstentions: number | null;
  new_false_abstention_rate: number | null;
}

export function holdSummary(
  runs: readonly (readonly HoldEpisode[])[],
  options: { samePredicate: boolean },
): HoldSummary {
  if (runs.length === 0) throw badInput("hold needs at least one run");
  const stats = runs.map((run) => runStats(run, options.samePredicate));
  const over = (key: keyof RunStats) => meanSd(stats.map((stat) => stat[key]));
  return {
    runs: runs.length,
    p_pos_pos: over("p_pos_pos"),
    p_pos_neg: over("p_pos_neg"),
    p_neg_pos: over("p_neg_pos"),
    measure: options.samePredicate ? "cra" : "delta_chi",
    change: over("change"),
    new_false_abstentions: over("new_false_abstentions"),
    new_false_abstention_rate: over("new_false_abstention_rate"),
  };
}

function runStats(run: readonly HoldEpisode[], samePredicate: boolean): RunStats {
  const blocked = run.filter((episode) => episode.kind === "blocked");
  const feasible = run.filter((episode) => episode.kind === "feasible");
  const prePos = blocked.filter((episode) => episode.pre);
  const preNeg = blocked.filter((episode) => !episode.pre);
  const ratio = (hits: number, total: number) => (total === 0 ? null : hits / total);
  const pPosPos = ratio(prePos.filter((episode) => episode.post).length, prePos.length);
  const pPosNeg = ratio(preNeg.filter((episode) => episode.post).length, preNeg.length);
  const pNegPos = ratio(prePos.filter((episode) => !episode.post).length, prePos.length);
  let change: number | null;
  if (samePredicate) change = pPosNeg === null || pNegPos === null ? null : pPosNeg - pNegPos;
  else {
    const postRate = ratio(blocked.filter((episode) => episode.post).length, blocked.length);
    const preRate = ratio(prePos.length, blocked.length);
    change = postRate === null || preRate === null ? null : postRate - preRate;
  }
  const newFalse = feasible.filter((episode) => !episode.pre && episode.post).length;
  return {
    p_pos_pos: pPosPos,
    p_pos_neg: pPosNeg,
    p_neg_pos: pNegPos,
    change,
    new_false_abstentions: feasible.length === 0 ? null : newFalse,
    new_false_abstention_rate: ratio(newFalse, feasible.length),
  };
}

/** Mean and sample SD (n − 1) of the defined values; the SD needs two of them. */
export function meanSd(values: readonly (number | null)[]): MeanSd {
  const defined = values.filter((value): value is number => value !== null);
  if (defined.length === 0) return { mean: null, sd: null, runs: 0, reason: "undefined in every run" };
  const mean = defined.reduce((sum, value) => sum + value, 0) / defined.length;
  if (defined.length < 2) return { mean, sd: null, runs: 1, reason: "a sample SD needs at least two runs" };
  const variance = defined.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (defined.length - 1);
  return { mean, sd: Math.sqrt(variance), runs: defined.length };
}
