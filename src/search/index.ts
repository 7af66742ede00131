/** The public entry of src/search: what other modules of src/ import from it (src/README.md, the import rule). */

export type { SearchConfig } from "./config/config-schema";
export { searchConfigSchema } from "./config/config-schema";
export { loadSearchConfig, searchConfigOf } from "./config/load-config";
export type { MetricModuleRef, RunMetricModules } from "./config/metric-modules";
export { loadMetricModules, loadRunMetricModules } from "./config/metric-modules";
export { isModulePath } from "./config/module-path";
export { CONVOLVE } from "./convolve";
export { runSearch } from "./loop/run-search";
export type { SearchEvents, SearchOutcome } from "./loop/search-events";
export type { SearchPlan } from "./plan/plan";
export { planSearch } from "./plan/plan";
export type { CallPlan, RoleCalls, TaskMix } from "./plan/plan-calls";
export {
  agentTurnsPerRollout,
  MAX_AGENT_TURNS_PER_ROLLOUT,
  planModelCalls,
  rolloutMix,
} from "./plan/plan-calls";
export type { ProposerRole } from "./proposers";
export { builtInProposerNames, proposerModelSpec, proposerOf, proposerRoleSpecs } from "./proposers";
export type { Digest, FailureMode } from "./proposers/digest";
export { blockedModes, blockedModesOf } from "./proposers/digest";
export { PROPOSER_ATTEMPTS, proposeByLlm, renderMetaPrompt } from "./proposers/llm-proposer";
export type { Proposal } from "./proposers/proposal";
export type { PluginProposer, ProposerContext } from "./proposers/proposer-context";
export { buildProposerInput, seedProposerInput } from "./proposers/proposer-input";
export type { ProposerInput } from "./proposers/proposer-input-types";
