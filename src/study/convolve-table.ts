import { deferredWithin, spl } from "../scoring";
import type { RolloutRecord } from "../store/types";
import { blockedOf, count, feasibleOf, type StudyTable, type TableMaker } from "./table";

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

export function convolveTable(make: TableMaker, rows: readonly ConvolveRow[]): StudyTable {
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
      const blocked = blockedOf(heldout);
      const feasible = feasibleOf(heldout);
      return {
        harness,
        proposer,
        absrec1: count(blocked, (s) => deferredWithin(s, 1)),
        absrec3: count(blocked, (s) => deferredWithin(s, 3)),
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
