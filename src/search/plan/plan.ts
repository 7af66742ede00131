import { planAcceptance } from "../acceptance";
import type { SearchConfig } from "../config/config-schema";

/**
 * What a search will spend (`hsearch run --plan`), pure: rollouts at most and at the expected stopping point, from the
 * config and the task counts alone, before any model call. The search rollouts are the acceptance rule's to count
 * (each rule's module says what its expectation assumes); the expected point assumes no proposal is exhausted or
 * duplicate.
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
  /** What the rule's expected figure assumes, printed after it (src/search/acceptance); null when nothing. */
  note: string | null;
}

export function planSearch(
  config: SearchConfig,
  counts: { search: number; heldout: number; independent: number },
): SearchPlan {
  const perTask = config.repeats;
  const final = config.heldout.final ? 2 * (counts.heldout + counts.independent) * perTask : 0;
  const { search, tasksPerUnchangedProposal, note } = planAcceptance(config, counts);
  return {
    candidates: 1 + config.rounds * config.proposals_per_round,
    search,
    final,
    tasksPerUnchangedProposal,
    note,
  };
}
