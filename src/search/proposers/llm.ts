import { costOf } from "../../models";
import { modelSpec } from "../config/config-fields";
import { proposeByLlm } from "./llm-proposer";
import { defineBuiltInProposer } from "./proposer";

/**
 * The llm proposer (src/search/proposers/llm-proposer.ts): a meta-agent prompt on the proposer role's model, its reply
 * validated; an invalid or empty reply is recorded, never silently dropped.
 */
export const llmProposer = defineBuiltInProposer({
  name: "llm",
  form: {
    schema: () => modelSpec,
    rule: "a model (provider:model, e.g. openai:gpt-4.1-mini)",
    describe: "a model (provider:model)",
  },
  usesModel: true,
  stream: "meta",
  label: (deps) => deps.metaModel?.id ?? "llm",
  async propose(input, { count, objective, rng, round, run }) {
    const { deps, group, firstSlot } = run;
    const model = deps.metaModel;
    if (!model) throw new Error("the llm proposer needs the proposer role's model");
    const { store, config } = deps;
    const result = await proposeByLlm(
      model,
      { ...input, count, objective, maxTokens: config.proposer.max_prompt_tokens },
      {
        seed: rng.int(2 ** 31),
        // A log of the round's proposer calls; the run's totals come from the proposer's meter.
        onCall: (usage) => {
          const usd = deps.prices ? costOf(deps.prices, model.id, usage).usd : 0;
          store.recordModelCall({ role: "proposer", model: model.id, round, ...usage, usd });
        },
      },
    );
    for (const [attempt, reason] of result.failures.entries())
      store.logEvent({ kind: "proposer_invalid_reply", data: { round, attempt, reason } });
    if (result.proposals.length === 0)
      store.recordProposalFailure({
        round,
        // 0 stands for the round's proposer call; a later parent's failed call is filed under its first slot.
        proposal: group > 0 ? firstSlot : 0,
        proposer: model.id,
        rationale: "(no valid reply)",
        reason: result.failures.join(" | "),
      });
    return result.proposals;
  },
});
