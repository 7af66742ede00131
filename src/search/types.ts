/**
 * The search's data types: the second entry of src/search, for type-only imports (as src/store/types.ts), so a
 * declaration that names a config, an outcome or a proposer's input does not reach the loop's modules and the store.
 */
export type { SearchConfig } from "./config/config-schema";
export type { MetricModuleRef, RunMetricModules } from "./config/metric-modules";
export type { SearchEvents, SearchOutcome } from "./loop/search-events";
export type { SearchPlan } from "./plan/plan";
export type { CallPlan, RoleCalls, TaskMix } from "./plan/plan-calls";
export type { Digest, FailureMode } from "./proposers/digest";
export type { Proposal } from "./proposers/proposal";
export type { PluginProposer, ProposerContext } from "./proposers/proposer-context";
export type { ProposerInput } from "./proposers/proposer-input-types";
