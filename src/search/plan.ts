import type { SearchConfig } from "./config-schema";
import { nextLook, raceLook } from "./race";
import { unchangedRoundTasks } from "./race-plan";

/**
 * What a search will spend (`hsearch run --plan`), pure: rollouts at most and at the expected stopping point, from the
 * config and the task counts alone, before any model call. Every candidate is scored on at most every search task
 * (a race's incumbent is extended, never scored twice), so the bound is exact for `greater` and `race`; `paired` adds
 * its extra repeats of close calls. The expected point assumes no proposal is exhausted or duplicate; under a race,
 * a proposal that changes no outcome stops where the confidence sequence rejects a mean difference of 0 (the
 * simulator's usual proposal), so that is its expected cost; with `halving`, tied proposals are dropped at its rungs
 * before that. An informative order (`order: informative`) is uniform until candidates disagree and then caps the
 * bets somewhat lower, so its unchanged proposals cost at least this much. Under `greater` with `early_reject`, a
 * proposal that changes nothing stops after the incumbent's failed search tasks, which no config tells: its expectation
 * is the bound, and `tasksPerUnchangedProposal` is null.
 */
export interface SearchPlan {
  candidates: number;
  search: { max: number; expected: number };
  /** The final held-out and independent evaluations of the selection and the seed. */
  final: number;
  /**
   * Search tasks a proposal that changes nothing runs before the race stops it (all of them without a race); null
   * under early rejection, where it is the number of search tasks the incumbent fails.
   */
  tasksPerUnchangedProposal: number | null;
}

export function planSearch(
  config: SearchConfig,
  counts: { search: number; heldout: number; independent: number },
): SearchPlan {
  const proposals = config.rounds * config.proposals_per_round;
  const candidates = 1 + proposals;
  const perTask = config.repeats;
  const full = candidates * counts.search * perTask;
  const rule = config.acceptance;
  const final = config.heldout.final ? 2 * (counts.heldout + counts.independent) * perTask : 0;
  if (rule.rule === "paired") {
    // A close call re-runs both arms with one more repeat, up to max_extra_repeats times.
    const extra = proposals * 2 * counts.search * rule.max_extra_repeats;
    return {
      candidates,
      search: { max: full + extra, expected: full },
      final,
      tasksPerUnchangedProposal: counts.search,
    };
  }
  if (rule.rule !== "race")
    return {
      candidates,
      search: { max: full, expected: full },
      final,
      tasksPerUnchangedProposal: rule.early_reject ? null : counts.search,
    };
  const raceRule = { alpha: rule.alpha, batch: rule.batch, minTasks: rule.min_tasks, margin: rule.margin };
  const decided = (tasks: number) =>
    raceLook(new Array<number>(tasks).fill(0), counts.search, raceRule).verdict !== "more";
  let n = 0;
  do n = nextLook(n, counts.search, rule.batch);
  while (!decided(n));
  const perRound = unchangedRoundTasks(
    counts.search,
    config.proposals_per_round,
    rule.batch,
    rule.halving,
    decided,
  );
  return {
    candidates,
    search: { max: full, expected: (counts.search + config.rounds * perRound) * perTask },
    final,
    tasksPerUnchangedProposal: n,
  };
}
