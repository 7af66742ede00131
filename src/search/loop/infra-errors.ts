/**
 * Provider errors never change what two candidates are compared on (DESIGN §7, README "Scoring"): a (task, repeat)
 * that met an infrastructure error in either arm is left out of the comparison — both arms are scored on the pairs
 * scored for both — and too many infrastructure errors stop the run instead of silently shrinking the denominator.
 */
import { HsearchError } from "../../core";
import type { EpisodeScore } from "../../scoring";

/** More of a candidate's rollouts met infrastructure errors than `max_infra_error_rate` allows: exit 1. */
export class InfraErrorRateExceeded extends HsearchError {
  constructor(message: string) {
    super("provider", message);
    this.name = "InfraErrorRateExceeded";
  }
}

const pairKey = (score: EpisodeScore) => `${score.task_id}#${score.repeat}`;

/** Both arms restricted to the (task, repeat) pairs scored (not infrastructure errors) in both. Pure. */
export function commonPairs(
  a: readonly EpisodeScore[],
  b: readonly EpisodeScore[],
): [EpisodeScore[], EpisodeScore[]] {
  const scored = (scores: readonly EpisodeScore[]) =>
    new Set(scores.filter((score) => score.kind !== "infra_error").map(pairKey));
  const inA = scored(a);
  const inB = scored(b);
  return [a.filter((score) => inB.has(pairKey(score))), b.filter((score) => inA.has(pairKey(score)))];
}
