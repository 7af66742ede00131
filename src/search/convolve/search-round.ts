import { createRng } from "../../core/rng";
import { costOf } from "../../models/prices";
import type { Proposal } from "../proposal";
import type { ProposerInput } from "../proposer-input-types";
import type { SearchDeps } from "../search-deps";
import { convolveChange, proposeByConvolve } from "./convolve";
import { type ConvolveEpisode, convolveEpisode } from "./episodes";

/**
 * One round of CONVOLVE inside a search: the incumbent's search rollouts (through the search view, so held-out and
 * independent episodes never reach a role) as the reflector's episodes; the roles' calls metered under their own role
 * names; the round's draw, lessons and deltas, and every invalid reply, recorded as run events.
 */
export async function proposeConvolveRound(
  deps: SearchDeps,
  input: ProposerInput,
  incumbent: string,
  round: number,
  stream: ReadonlyArray<string | number>,
  { count, group, firstSlot }: { count: number; group: number; firstSlot: number },
): Promise<Proposal[]> {
  const { store, config, metaModel } = deps;
  const view = store.searchView();
  const episodes: ConvolveEpisode[] = [];
  for (const rollout of view.rollouts(incumbent)) {
    const episode = convolveEpisode(rollout.key, view.trajectory(incumbent, rollout.key), rollout.scores);
    if (episode) episodes.push(episode);
  }
  const tried = new Set<string>();
  for (const r of input.rejected)
    if (r.commit === null || r.parent === incumbent) {
      const change = convolveChange(r.rationale);
      if (change) tried.add(change);
    }
  const result = await proposeByConvolve(input, episodes, {
    count,
    tried,
    trajectories: config.proposer.trajectories,
    draw: { seed: config.seed, stream },
    seed: createRng(config.seed, "convolve", ...stream).int(2 ** 31),
    ...(metaModel ? { models: { reflector: metaModel, curator: metaModel } } : {}),
    onCall: (role, usage) => {
      const model = metaModel?.id ?? "";
      const usd = deps.prices ? costOf(deps.prices, model, usage).usd : 0;
      store.recordModelCall({ role, model, round, ...usage, usd });
    },
    onInvalid: (role, attempt, reason) =>
      store.logEvent("convolve_invalid_reply", { round, role, attempt, reason }),
  });
  store.logEvent("convolve_round", {
    round,
    incumbent,
    drawn: result.drawn,
    lessons: result.lessons,
    deltas: result.deltas,
    proposals: result.proposals.length,
  });
  if (result.failed)
    store.recordProposalFailure({
      round,
      proposal: group > 0 ? firstSlot : 0,
      proposer: metaModel?.id ?? "convolve",
      rationale: `(no valid ${result.failed} reply)`,
      reason: `the ${result.failed} gave no valid reply in its attempts (events convolve_invalid_reply)`,
    });
  return result.proposals;
}
