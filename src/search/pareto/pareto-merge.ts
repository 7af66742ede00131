import { createRng, hashJson, type Rng } from "../../core";
import { readTree } from "../../git";
import { harnessLimitsOf, parseHarness } from "../../harness";
import type { SearchView } from "../../store";
import { frontMembers } from "../acceptance/pareto-round";
import { lineageOf, nearestIn } from "../loop/lineage";
import type { SearchDeps } from "../loop/search-deps";
import { mergeEdit } from "../proposers/operator-library";
import { applyProposal, type Proposal } from "../proposers/proposal";
import { knownHarnesses } from "../proposers/proposer-input";
import { drawIndex, type FrontCandidate, paretoFront } from "./pareto";

/**
 * GEPA's merge under `strategy: pareto`: the front keeps members that lead on different families, and a front is
 * worth keeping because their edits can be combined. One slot of a round (the last) merges into its drawn parent the
 * edits another front member made since their common ancestor, when such a member exists and the merged harness is
 * new to the run; otherwise the slot goes to the proposer like the others. The merge needs no model, so it works the
 * same with both proposers.
 */
export interface MergePlan {
  recipient: string;
  donor: FrontCandidate;
  /** The nearest ancestor of the donor in the recipient's lineage: the edits merged are the donor's since then. */
  base: string;
}

/**
 * The donors a recipient can take edits from, in a seeded order weighted like parents (by the families each leads):
 * front members outside the recipient's lineage (not an ancestor, whose edits it has, nor a descendant, which has its).
 */
export function mergeDonors(
  view: SearchView,
  members: FrontCandidate[],
  recipient: string,
  rng: Rng,
): MergePlan[] {
  const ancestors = lineageOf(view, recipient);
  const pool = paretoFront(members).filter(
    ({ candidate }) => !ancestors.has(candidate.commit) && !lineageOf(view, candidate.commit).has(recipient),
  );
  const plans: MergePlan[] = [];
  while (pool.length > 0) {
    const [entry] = pool.splice(
      drawIndex(
        pool.map((candidate) => candidate.wins + 1),
        rng,
      ),
      1,
    );
    if (!entry) break;
    const base = nearestIn(view, entry.candidate.commit, ancestors);
    if (base) plans.push({ recipient, donor: entry.candidate, base });
  }
  return plans;
}

/**
 * The round's merge proposal into `recipient` and the hash of the harness it makes (the proposer is told to avoid
 * it), or null when no front member offers a new combination.
 */
export async function mergeProposal(
  deps: SearchDeps,
  repo: string,
  round: number,
  recipient: string,
): Promise<{ proposal: Proposal; harness: string } | null> {
  const view = deps.store.searchView();
  const members = frontMembers(view, deps.config.objective, round);
  const mine = members.find((member) => member.commit === recipient);
  const plans = mergeDonors(view, members, recipient, createRng(deps.config.seed, "pareto-merge", round));
  if (plans.length === 0 || !mine) return null;
  const files = await readTree(repo, recipient);
  const harness = parseHarness(files, recipient.slice(0, 12), harnessLimitsOf(deps.config.limits));
  // Harnesses the run already has (earlier rounds only, so a resumed round plans what the interrupted one did).
  const known = await knownHarnesses(view, repo, round);
  for (const plan of plans) {
    const edits = mergeEdit(harness, {
      commit: plan.donor.commit,
      round: plan.donor.round,
      proposal: plan.donor.proposal,
      gain: 0,
      files: await readTree(repo, plan.donor.commit),
      parentFiles: await readTree(repo, plan.base),
    });
    if (!edits) continue;
    const proposal: Proposal = { files: edits, rationale: "", operator: "merge", proposer: "pareto-merge" };
    const merged = hashJson(applyProposal(files, proposal));
    if (known.has(merged)) continue;
    const leads = [...plan.donor.outcomes]
      .filter(([family, value]) => value > (mine.outcomes.get(family) ?? 0))
      .map(([family]) => family);
    const rationale = `Merge the edits that front member r${plan.donor.round}p${plan.donor.proposal} (${plan.donor.commit.slice(0, 12)}) made since the common ancestor ${plan.base.slice(0, 12)} into this parent${leads.length > 0 ? `: it leads on ${leads.join(", ")}` : ""}.`;
    return { proposal: { ...proposal, rationale }, harness: merged };
  }
  return null;
}
