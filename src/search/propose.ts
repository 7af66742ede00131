import { createRng } from "../core/rng";
import type { EpisodeScore } from "../scoring";
import { loadCandidate } from "./candidate-rollouts";
import { buildDigest } from "./digest";
import { proposeByLlm } from "./llm-proposer";
import { proposeByOperators } from "./operators";
import type { Proposal } from "./proposal";
import type { SearchDeps } from "./search-deps";

/** The proposer's inputs: the incumbent's files, its search-split digest, and the memory of rejected proposals. */
export async function propose(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  round: number,
): Promise<Proposal[]> {
  const { store, config } = deps;
  const view = store.searchView();
  const harness = await loadCandidate(repo, incumbent);
  const episodes = view.rollouts(incumbent).map((r) => ({
    trajectory: view.trajectory(incumbent, r.key),
    score: r.scores as unknown as EpisodeScore,
  }));
  const digest = buildDigest(episodes, view.candidate(incumbent)?.score ?? 0);
  // Only earlier rounds: a resumed round must see what the interrupted one saw, or it would propose other edits.
  const rejected = view.rejectedProposals().filter((r) => r.round < round);
  deps.onProposerInput?.({ harness: harness.files, digest, rejected });
  const tried = new Set(
    rejected
      .filter((r) => r.commit === null || view.candidate(r.commit)?.parent === incumbent)
      .map((r) => r.rationale),
  );
  if (!deps.metaModel) {
    const rng = createRng(config.seed, "proposer", round);
    return proposeByOperators({ harness, digest, tried, count: config.proposals_per_round, rng, round });
  }
  const result = await proposeByLlm(
    deps.metaModel,
    {
      files: harness.files,
      digest,
      rejected,
      count: config.proposals_per_round,
      objective: config.objective,
    },
    {
      seed: createRng(config.seed, "meta", round).int(2 ** 31),
      onCall: (usage) =>
        store.recordModelCall({ role: "proposer", model: deps.metaModel?.id ?? "", round, ...usage, usd: 0 }),
    },
  );
  for (const [attempt, reason] of result.failures.entries())
    store.logEvent("proposer_invalid_reply", { round, attempt, reason });
  if (result.proposals.length === 0)
    store.recordProposalFailure({
      round,
      proposal: 0,
      proposer: deps.metaModel.id,
      rationale: "(no valid reply)",
      reason: result.failures.join(" | "),
    });
  return result.proposals;
}
