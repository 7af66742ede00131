import { createRng } from "../../core";
import type { Family } from "../../domain";
import type { Trajectory } from "../../harness";
import type { EpisodeScore } from "../../scoring";
import { decisiveExcerpt, type Moment, toMoment } from "../proposers/digest";

/**
 * The reflector's view of one search-split episode: what the agent saw and did (messages, tool calls, observations,
 * its assessments and deferrals, with steps), how it ended, and the search-split labels a proposer may learn from
 * (family, decisive step). Built from the trajectory's events only — never its verifier report, reward or the task —
 * so no protected task field (blocker, reference, verify) can reach a role.
 */
export interface ConvolveEpisode {
  key: string;
  task_id: string;
  kind: "blocked" | "feasible";
  family: Family | null;
  outcome: Outcome;
  /** Blocked: the step the blocker became visible (o_i). */
  decisive_step: number | null;
  /** The agent's first certified deferral, or null. */
  deferral_step: number | null;
  /** What the agent saw when it should have acted (blocked) or just before it abstained (false abstention). */
  excerpt: string;
  moments: Moment[];
}

/**
 * timely: deferred at the decisive step (AbsRec@1); late / early: after / before it; missed: never deferred.
 * Feasible: solved, false_abstention, failed.
 */
export type Outcome = "timely" | "late" | "early" | "missed" | "solved" | "false_abstention" | "failed";

/** What the reflector reads: blocked episodes that failed or deferred late, feasible ones that abstained falsely. */
export const REFLECTED_OUTCOMES: readonly Outcome[] = ["late", "early", "missed", "false_abstention"];

export function convolveEpisode(
  key: string,
  trajectory: Trajectory,
  score: EpisodeScore,
): ConvolveEpisode | null {
  if (score.kind === "infra_error") return null;
  const outcome = outcomeOf(score);
  const step = score.kind === "blocked" ? score.decisive_step : (score.deferral_step ?? trajectory.steps);
  return {
    key,
    task_id: score.task_id,
    kind: score.kind,
    family: score.family,
    outcome,
    decisive_step: score.kind === "blocked" ? score.decisive_step : null,
    deferral_step: score.deferral_step,
    excerpt: decisiveExcerpt(trajectory.events, step, score.kind === "blocked" ? score.family : null),
    moments: trajectory.events.map(toMoment).filter((m): m is Moment => m !== null),
  };
}

function outcomeOf(score: Exclude<EpisodeScore, { kind: "infra_error" }>): Outcome {
  if (score.kind === "feasible")
    return score.false_abstention ? "false_abstention" : score.solve ? "solved" : "failed";
  const a = score.deferral_step;
  if (a === null) return "missed";
  if (a < score.decisive_step) return "early";
  return a === score.decisive_step ? "timely" : "late";
}

/**
 * CONVOLVE's data budget: at most `n` of the episodes the reflector reads, a seeded draw (the same in a resumed round),
 * in key order.
 */
export function drawTrajectories(
  episodes: readonly ConvolveEpisode[],
  n: number,
  seed: number,
  stream: ReadonlyArray<string | number>,
): ConvolveEpisode[] {
  const pool = episodes
    .filter((e) => REFLECTED_OUTCOMES.includes(e.outcome))
    .sort((a, b) => a.key.localeCompare(b.key));
  const drawn = createRng(seed, "convolve-trajectories", ...stream)
    .shuffle(pool)
    .slice(0, n);
  return drawn.sort((a, b) => a.key.localeCompare(b.key));
}
