import type { BlockedEpisodeScore, FeasibleEpisodeScore } from "../scoring";
import { spl } from "../scoring";
import type { RolloutRecord } from "../store/types";
import type { Cell, CountCell, StudyTable } from "./table";

/**
 * Harness search against CONVOLVE on the held-out tasks: the initial harness, each harness search's selection and
 * the CONVOLVE search's (the joint search's seed harness, tasks, budget and seed; only the proposer differs), with
 * timeliness (AbsRec@1, AbsRec@3, SPL), strict SA, solve and false abstention, each rate with its counts.
 */
export interface ConvolveRow {
  harness: string;
  proposer: string;
  heldout: readonly RolloutRecord[];
  /** The search-split rollouts its search ran (null for the initial harness). */
  searchRollouts: number | null;
}

type Make = (
  key: string,
  number: string,
  title: string,
  columns: Array<[string, string]>,
  rows: Array<Record<string, Cell>>,
  notes?: string[],
) => StudyTable;

const count = <T>(items: readonly T[], hit: (item: T) => boolean): CountCell => ({
  k: items.filter(hit).length,
  n: items.length,
});

/** Deferred within `k` steps of the decisive one (AbsRec@k); an early deferral counts for none. */
const within = (k: number) => (s: BlockedEpisodeScore) =>
  s.deferral_step !== null && s.deferral_step - s.decisive_step >= 0 && s.deferral_step - s.decisive_step < k;

export function convolveTable(make: Make, rows: readonly ConvolveRow[]): StudyTable {
  return make(
    "convolve",
    "CONVOLVE",
    "Harness search against CONVOLVE: held-out outcomes of each search's selection",
    [
      ["harness", "harness"],
      ["proposer", "proposer"],
      ["absrec1", "AbsRec@1"],
      ["absrec3", "AbsRec@3"],
      ["spl", "SPL"],
      ["strict_sa", "strict SA"],
      ["solve", "feasible solve"],
      ["false_abstention", "false abstention"],
      ["search_rollouts", "search rollouts"],
      ["infra", "infra errors"],
    ],
    rows.map(({ harness, proposer, heldout, searchRollouts }) => {
      const blocked = heldout.flatMap((r) =>
        r.scores.kind === "blocked" ? [r.scores as BlockedEpisodeScore] : [],
      );
      const feasible = heldout.flatMap((r) =>
        r.scores.kind === "feasible" ? [r.scores as FeasibleEpisodeScore] : [],
      );
      return {
        harness,
        proposer,
        absrec1: count(blocked, within(1)),
        absrec3: count(blocked, within(3)),
        spl: blocked.length === 0 ? null : spl(blocked),
        strict_sa: count(blocked, (s) => s.strict_sa),
        solve: count(feasible, (s) => s.solve),
        false_abstention: count(feasible, (s) => s.false_abstention),
        search_rollouts: searchRollouts,
        infra: heldout.filter((r) => r.scores.kind === "infra_error").length,
      };
    }),
    [
      "The CONVOLVE search is the joint search with `meta_model: convolve`: the same seed harness, search tasks, rounds × proposals and seed; its playbook is curated from at most `proposer.trajectories` (20) search-split trajectories a round.",
      "AbsRec@k counts blocked episodes the agent deferred within k steps of the decisive one (k/n over the blocked held-out episodes); SPL is the mean over them of o/max(a, o) for a deferral at or after the decisive step o, 0 otherwise. Search rollouts are those each search ran on the search split (not equalised).",
    ],
  );
}
