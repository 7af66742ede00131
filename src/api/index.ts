/**
 * hsearch as a library: what `import … from "hsearch"` gives. The CLI is a layer over these same functions.
 */
export { HsearchError, type HsearchErrorCode, isHsearchError } from "../core/errors";
export type { Rng } from "../core/rng";
export type { PluginTask, Task } from "../domain/task";
export { ABSTAINED, abstainDeferral, abstainTool, type DeferralChange } from "../envs/deferral";
export { EffectLog } from "../envs/effect-log";
export type { EpisodeOutcome } from "../envs/suite-runtime";
export type { Author, EffectRecord, Environment, ToolResult, ToolSpec } from "../envs/types";
export type { Trajectory } from "../harness/trajectory";
export {
  defineProposer,
  defineSuite,
  type PluginTaskInput,
  type ProposedEdit,
  type ProposerContext,
  type ProposerDefinition,
  type SuiteDefinition,
} from "../plugins";
export {
  defineMetric,
  type Metric,
  type MetricEpisode,
  type MetricKind,
  type MetricResult,
} from "../scoring/metrics";
export type { SearchConfig } from "../search/config-schema";
export type { Digest } from "../search/digest";
export type { ProposerInput } from "../search/proposer-input-types";
export type { SearchOutcome } from "../search/search-events";
export type {
  CandidateRecord,
  EvaluationRecord,
  EventRecord,
  Purpose,
  RolloutRecord,
  RoundRecord,
  RunRecord,
  UsageTotal,
} from "../store/records";
export { type CandidateDiff, diffCandidates, exportHarness, type RunRef } from "./candidates";
export type { EvalOutcome } from "./eval-outcome";
export { type EvaluateModels, type EvaluateOptions, evaluate } from "./evaluate";
export { openRun, type RunReader } from "./open-run";
export { DEFAULT_PILOT_TASKS, type PlanOptions, planRun, type RunPlan } from "./plan";
export type { PilotEstimate, RoleSpend, Spend } from "./plan-pilot";
export {
  type BeliefsReport,
  type ChallengeReport,
  type ProbeOptions,
  probeBeliefs,
  probeChallenge,
} from "./probe";
export type { RunEvent, RunEventListener } from "./run-events";
export type { StatusWithSuites } from "./run-result";
export type { BudgetRaise } from "./run-setup";
export type { TaskSelection } from "./select-tasks";
export {
  DEFAULT_CONFIG,
  type ResumeRunOptions,
  type RunHandle,
  type RunOptions,
  type RunResult,
  resumeRun,
  type StartRunOptions,
  startRun,
} from "./start-run";
export {
  DEFAULT_STUDY,
  type PlannedStep,
  planStudy,
  resumeStudy,
  runStudy,
  type StepSpend,
  type StudyCalls,
  type StudyEvent,
  type StudyHandle,
  type StudyOptions,
  type StudyPlan,
  type StudyPlanOptions,
  type StudyResult,
} from "./study";
