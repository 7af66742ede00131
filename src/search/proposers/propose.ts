import { createRng } from "../../core";
import type { SearchDeps } from "../loop/search-deps";
import { proposerOf } from "./";
import type { Proposal } from "./proposal";
import { buildProposerInput } from "./proposer-input";

/**
 * The proposer's inputs (src/search/proposers/proposer-input.ts), the same for every proposer (src/search/proposers); returns
 * its proposals.
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
  const proposer = proposerOf(config);
  const input = await buildProposerInput({ view: store.searchView(), repo, config }, incumbent, round);
  deps.onProposerInput?.(input);
  const edits = await proposer.propose(input, {
    count,
    round,
    objective: config.objective,
    seed: config.seed,
    // Its own stream, so a proposer draws the same numbers in a resumed round as in the interrupted one.
    rng: createRng(config.seed, proposer.stream ?? proposer.name, ...(group > 0 ? [round, group] : [round])),
    run: { deps, repo, incumbent, group, firstSlot, avoid },
  });
  return edits.map((edit) => ({ ...edit, operator: edit.operator ?? proposer.name }));
}
