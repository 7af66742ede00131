import { costOf } from "../../models";
import type { ChatModel } from "../../models/types";
import {
  CONVOLVE,
  type ConvolveEpisode,
  convolveChange,
  convolveEpisode,
  proposeByConvolve,
  ROLE_ATTEMPTS,
  type RoleName,
} from "../convolve";
import { defineBuiltInProposer } from "./proposer";

/**
 * CONVOLVE (`meta_model: convolve`, src/search/convolve): the incumbent's search rollouts (through the search view,
 * so held-out and independent episodes never reach a role) read by a reflector and curated into playbook deltas. Each
 * role is its model (`models.reflector.spec`, `models.curator.spec`: own settings, meter and request cache) or,
 * without one, the offline role. Calls are logged under the role's name; the round's draw, lessons and deltas and
 * every invalid reply are run events.
 */
export const convolveProposer = defineBuiltInProposer({
  name: CONVOLVE,
  stream: "convolve",
  roles: ["reflector", "curator"],
  roleAttempts: ROLE_ATTEMPTS,
  async pilotRoles({ config, input, episodes, models, seed }) {
    const reflected = episodes.flatMap(({ key, trajectory, score }) => {
      const episode = convolveEpisode(key, trajectory, score);
      return episode ? [episode] : [];
    });
    const result = await proposeByConvolve(input, reflected, {
      count: config.proposals_per_round,
      trajectories: config.proposer.trajectories,
      draw: { seed, stream: [] },
      seed,
      models,
    });
    return {
      proposed: result.proposals.length > 0,
      from: `round 1 from the pilot's ${reflected.length} episodes: ${result.drawn.length} drawn for the reflector (a run's rounds draw up to proposer.trajectories ${config.proposer.trajectories} from every search task's episodes), ${result.lessons.length} lessons for the curator`,
    };
  },
  async propose(input, { count, rng, round, run }) {
    const { deps, incumbent, group, firstSlot } = run;
    const { store, config } = deps;
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
    const models: Partial<Record<RoleName, ChatModel>> = deps.roleModels ?? {};
    const drawSeed = rng.int(2 ** 31);
    const result = await proposeByConvolve(input, episodes, {
      count,
      tried,
      trajectories: config.proposer.trajectories,
      draw: { seed: drawSeed, stream: [] },
      seed: rng.int(2 ** 31),
      models,
      onCall: (role, usage) => {
        const model = models[role]?.id ?? "";
        const usd = deps.prices ? costOf(deps.prices, model, usage).usd : 0;
        store.recordModelCall({ role, model, round, ...usage, usd });
      },
      onInvalid: (role, attempt, reason) =>
        store.logEvent({ kind: "convolve_invalid_reply", data: { round, incumbent, role, attempt, reason } }),
    });
    store.logEvent({
      kind: "convolve_round",
      data: {
        round,
        incumbent,
        drawn: result.drawn,
        lessons: result.lessons as unknown as Record<string, unknown>[],
        deltas: result.deltas as unknown as Record<string, unknown>[],
        proposals: result.proposals.length,
      },
    });
    if (result.failed)
      store.recordProposalFailure({
        round,
        // 0 stands for the round's proposer call; a later parent's failed call is filed under its first slot.
        proposal: group > 0 ? firstSlot : 0,
        proposer: models[result.failed]?.id ?? CONVOLVE,
        rationale: `(no valid ${result.failed} reply)`,
        reason: `the ${result.failed} gave no valid reply in ${result.attempts.join(" | ")}`,
      });
    return result.proposals;
  },
});
