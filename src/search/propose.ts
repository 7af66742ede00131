import { createRng } from "../core/rng";
import { costOf } from "../models/prices";
import { convolveSelected, proposeConvolveRound } from "./convolve";
import { proposeByLlm } from "./llm-proposer";
import { runOperators } from "./operators";
import type { Proposal } from "./proposal";
import { buildProposerInput, operatorMaterial } from "./proposer-input";
import type { SearchDeps } from "./search-deps";

/**
 * The proposer's inputs (src/search/proposer-input.ts), the same for every proposer (operators, a model, a module);
 * returns its proposals.
 * `count` proposals from `incumbent` (the round's parent); `group` numbers the parents of one round after the first
 * (strategy pareto draws a parent per proposal), so each parent's proposer draws come from their own seeded stream;
 * `firstSlot` is the number of its first proposal in the round; `avoid`, hashes of harnesses this round already has
 * (pareto's merge), which the operators do not propose again.
 */
export async function propose(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  round: number,
  {
    count = deps.config.proposals_per_round,
    group = 0,
    firstSlot = 1,
    avoid = [],
  }: { count?: number; group?: number; firstSlot?: number; avoid?: readonly string[] } = {},
): Promise<Proposal[]> {
  const { store, config } = deps;
  const stream = group > 0 ? [round, group] : [round];
  const view = store.searchView();
  const input = await buildProposerInput({ view, repo, config }, incumbent, round);
  deps.onProposerInput?.(input);
  if (deps.pluginProposer) {
    const proposals = await deps.pluginProposer.propose(input, {
      count,
      round,
      objective: config.objective,
      seed: config.seed,
      // Its own stream, so a plug-in draws the same numbers in a resumed round as in the interrupted one.
      rng: createRng(config.seed, "proposer-module", ...stream),
    });
    // A module with nothing to propose is not a failure (as operators that ran dry): the round has no proposal.
    if (proposals.length === 0)
      store.logEvent("proposer_module_empty", { round, incumbent, proposer: deps.pluginProposer.name });
    return proposals;
  }
  if (convolveSelected(config.proposer))
    return proposeConvolveRound(deps, input, incumbent, round, stream, { count, group, firstSlot });
  if (!deps.metaModel) {
    const tried = new Set(
      input.rejected.filter((r) => r.commit === null || r.parent === incumbent).map((r) => r.rationale),
    );
    const rng = createRng(config.seed, "proposer", ...stream);
    const material = await operatorMaterial(view, repo, incumbent, round);
    for (const hash of avoid) material.known.add(hash);
    const result = runOperators({
      harness: input.harness,
      digest: input.digest,
      tried,
      ...material,
      count,
      rng,
      round,
    });
    if (result.exhausted)
      store.logEvent("operators_exhausted", { round, incumbent, proposals: result.proposals.length });
    return result.proposals;
  }
  const result = await proposeByLlm(
    deps.metaModel,
    {
      ...input,
      count,
      objective: config.objective,
      maxTokens: config.proposer.max_prompt_tokens,
    },
    {
      seed: createRng(config.seed, "meta", ...stream).int(2 ** 31),
      // A log of the round's proposer calls; the run's totals come from the proposer's meter.
      onCall: (usage) => {
        const model = deps.metaModel?.id ?? "";
        const usd = deps.prices ? costOf(deps.prices, model, usage).usd : 0;
        store.recordModelCall({ role: "proposer", model, round, ...usage, usd });
      },
    },
  );
  for (const [attempt, reason] of result.failures.entries())
    store.logEvent("proposer_invalid_reply", { round, attempt, reason });
  if (result.proposals.length === 0)
    store.recordProposalFailure({
      round,
      // 0 stands for the round's proposer call; a later parent's failed call is filed under its first slot.
      proposal: group > 0 ? firstSlot : 0,
      proposer: deps.metaModel.id,
      rationale: "(no valid reply)",
      reason: result.failures.join(" | "),
    });
  return result.proposals;
}
