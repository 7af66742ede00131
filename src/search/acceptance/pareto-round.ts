import { createRng } from "../../core";
import type { SearchView } from "../../store";
import { lineageOf } from "../loop/lineage";
import type { SearchDeps } from "../loop/search-deps";
import {
  admitToFront,
  bestByObjective,
  type FrontCandidate,
  groupOutcomes,
  pickParent,
} from "../pareto/pareto";
import type { EvaluatedProposal, ProposalVerdict } from "./verdicts";

/**
 * The round steps of `strategy: pareto`, reading the search view only: the front is the seed and every proposal
 * admitted in an earlier round (verdict `accepted`), so a resumed round sees the front the interrupted one saw.
 */
export function frontMembers(
  view: SearchView,
  objective: SearchDeps["config"]["objective"],
  round: number,
): FrontCandidate[] {
  const earlier = view.candidates().filter((c) => c.round < round);
  const spent = new Map<string, number>();
  for (const c of earlier)
    if (c.parent && c.verdict !== "accepted") spent.set(c.parent, (spent.get(c.parent) ?? 0) + 1);
  return earlier
    .filter((c) => c.score !== null && (c.parent === null || c.verdict === "accepted"))
    .map((c) => ({
      commit: c.commit,
      round: c.round,
      proposal: c.proposal,
      score: c.score as number,
      outcomes: groupOutcomes(
        view.rollouts(c.commit).map((r) => r.scores),
        objective,
      ),
      spent: spent.get(c.commit) ?? 0,
      edits: lineageOf(view, c.commit).size - 1,
    }));
}

/**
 * The parent of each of this round's proposals, a front member drawn for each by the seeded GEPA rule (GEPA draws
 * per proposal): one draw per round would spend a whole round's proposals on whichever member came up, and a search
 * of four rounds would then try at most four parents.
 */
export function paretoParents(deps: SearchDeps, round: number): string[] {
  const members = frontMembers(deps.store.searchView(), deps.config.objective, round);
  const rng = createRng(deps.config.seed, "pareto-parent", round);
  return Array.from({ length: deps.config.proposals_per_round }, () => pickParent(members, rng).commit);
}

/**
 * The proposal slots grouped by parent, in the order each parent was first drawn: the proposer is asked once per
 * parent for as many proposals as that parent was drawn, so two slots of the same parent get two different edits.
 */
export function groupByParent(parents: readonly string[]): Array<{ parent: string; count: number }> {
  const groups: Array<{ parent: string; count: number }> = [];
  for (const parent of parents) {
    const group = groups.find((g) => g.parent === parent);
    if (group) group.count++;
    else groups.push({ parent, count: 1 });
  }
  return groups;
}

/**
 * Admit the round's evaluated proposals into the front, in proposal order (each admitted one counts for the next);
 * returns the verdicts and the selection so far (the front's best by the objective).
 */
export function decidePareto(
  deps: SearchDeps,
  round: number,
  evaluated: readonly EvaluatedProposal[],
): { verdicts: ProposalVerdict[]; accepted: string | null; best: string } {
  const view = deps.store.searchView();
  const members = frontMembers(view, deps.config.objective, round);
  const verdicts: ProposalVerdict[] = [];
  let accepted: FrontCandidate | null = null;
  for (const proposal of evaluated) {
    const candidate: FrontCandidate = {
      commit: proposal.commit,
      round,
      proposal: proposal.proposal,
      score: proposal.score,
      outcomes: groupOutcomes(proposal.scores, deps.config.objective),
    };
    const parentCommit = view.candidate(proposal.commit)?.parent;
    const parent = members.find((member) => member.commit === parentCommit) ?? null;
    candidate.edits = (parent?.edits ?? 0) + 1;
    const { admitted, reason } = admitToFront(candidate, members, parent);
    verdicts.push({ commit: proposal.commit, verdict: admitted ? "accepted" : "rejected", reason });
    if (!admitted) continue;
    members.push(candidate);
    if (accepted === null || candidate.score > accepted.score) accepted = candidate;
  }
  return { verdicts, accepted: accepted?.commit ?? null, best: bestByObjective(members).commit };
}
