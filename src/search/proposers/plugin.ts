import { modulePath } from "../config/config-fields";
import { defineBuiltInProposer } from "./proposer";

/**
 * A researcher's proposer module (`meta_model: ./my-proposer.mjs`, loaded by src/plugins into `deps.pluginProposer`):
 * given the plug-in context only, never the run.
 */
export const pluginProposer = defineBuiltInProposer({
  name: "module",
  form: {
    schema: modulePath,
    rule: "the path of a proposer module (./my-proposer.mjs)",
    describe: "the path of a plug-in proposer module (./my-proposer.mjs, relative to the config file)",
  },
  stream: "proposer-module",
  label: (deps) => deps.pluginProposer?.name ?? "module",
  async propose(input, { run, ...context }) {
    const { deps, incumbent } = run;
    const module = deps.pluginProposer;
    if (!module) throw new Error("meta_model names a proposer module that was not loaded");
    const proposals = await module.propose(input, context);
    // A module with nothing to propose is not a failure (as operators that ran dry): the round has no proposal.
    if (proposals.length === 0)
      deps.store.logEvent({
        kind: "proposer_module_empty",
        data: {
          round: context.round,
          incumbent,
          proposer: module.name,
        },
      });
    return proposals;
  },
});
