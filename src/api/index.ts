/**
 * hsearch as a library: what `import … from "hsearch"` gives. The CLI is a layer over these same functions.
 */

/*
 * What hsearch prints with, for a program that prints the same: labels and directions from the metric catalogue,
 * the paired interval and p-value formats, Wilson rates, usage and the notes of a stopped run.
 */
export type { RunComparison } from "../compare/compare-runs";
export type { PairedRow, PairedSplit } from "../compare/paired-split";
export { HsearchError, type HsearchErrorCode, isHsearchError } from "../core/errors";
export type { Rng } from "../core/rng";
export {
  FAMILIES,
  KINDS,
  type PluginTask,
  SPLITS,
  type Split,
  SUITES,
  type Suite,
  type Task,
} from "../domain/task";
export { ABSTAINED, abstainDeferral, abstainTool, type DeferralChange } from "../envs/deferral";
export { EffectLog } from "../envs/effect-log";
export type { EpisodeOutcome } from "../envs/suite-runtime";
export { IMAGE_SOURCE_VARIABLE, IMAGE_SOURCES, withImageSource } from "../envs/terminal";
export { ALLOW_INTERNET_VARIABLE } from "../envs/terminal/internet";
export { cutMiddle } from "../envs/terminal/output-cut";
export type { Author, EffectRecord, Environment, ToolResult, ToolSpec } from "../envs/types";
export { type Harness, loadHarness } from "../harness/load";
export type { Trajectory } from "../harness/trajectory";
export type { AtifTrajectory } from "../interop";
export { describeRejection, type LearntRejection } from "../models/parameter-fallback";
export type { ParameterFallbacks, ProviderClientOptions, ProviderDefinition } from "../models/provider";
export { ProviderCallError } from "../models/provider-error";
export { registerProvider } from "../models/providers";
export type { ChatModel, ChatRequest, ChatResponse } from "../models/types";
export { formatUsd, type RoleUsage } from "../models/usage";
export {
  defineProposer,
  defineSuite,
  type PluginTaskInput,
  type ProposedEdit,
  type ProposerContext,
  type ProposerDefinition,
  type SuiteDefinition,
} from "../plugins";
export type { BeliefSummary, HoldViewReport, MetricReport } from "../probes";
export { type Comparison, type Difference, type Rate, summaryRate, wilson } from "../report/compare";
export type { EvalReport } from "../report/eval-data";
export { evalResumeCommand, viewCommand } from "../report/format";
export type { RunMetricCell, RunMetricTable } from "../report/run-metrics";
export type { BlockedRates, MeanSd } from "../scoring";
export { DEFAULT_MAX_INFRA_ERROR_RATE, DEFAULT_RESAMPLES } from "../scoring";
export {
  BUILTIN_METRICS,
  type BuiltinMetric,
  builtinMetric,
  builtinMetricsOf,
  defineMetric,
  type Metric,
  type MetricEpisode,
  type MetricKind,
  type MetricResult,
  metricLabel,
  storedMetric,
} from "../scoring/metrics";
export { type ObjectiveName, objectiveCounts } from "../scoring/objective";
export { type PairedDelta, pairedIntervalText, pValueText } from "../scoring/pairing";
export type { SearchConfig } from "../search/config-schema";
export type { Digest } from "../search/digest";
export { isModulePath } from "../search/module-path";
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
export { describeStoppedEarly, type RunStatus } from "../store/run-status";
export { DEFAULT_QUEUE } from "../workers/rollout-job";
export { AGENT_EXIT_CODES, type AgentInput, type AgentOutcome, type AgentStatus, runAgent } from "./agent";
export { type CandidateDiff, diffCandidates, exportHarness, type RunRef } from "./candidates";
export { createModel } from "./create-model";
export { type DiffedCandidate, type DiffOptions, diffRun, type RunDiff } from "./diff";
export { type DigestOptions, digestPrompt } from "./digest";
export type { EvalOutcome } from "./eval-outcome";
export { type EvaluateModels, type EvaluateOptions, evaluate } from "./evaluate";
export {
  type EvaluateContext,
  type EvaluateRequest,
  type EvaluateRequestOutcome,
  evaluateRequest,
  resumeEvaluationRequest,
} from "./evaluate-request";
export {
  EXPORT_FORMATS,
  type ExportFormat,
  exportAtifTrajectories,
  exportInspectLog,
  trajectoryFileAsAtif,
} from "./export-log";
export {
  type AptRunner,
  aptInstallCommand,
  BUILD_NETWORKS,
  type DebianHost,
  debianApt,
  debianHost,
  HARBOR_SANDBOXES,
  type HarborImport,
  type HarborImported,
  type HarborImportOptions,
  harborRequirements,
  type InstallPlan,
  type InstallReport,
  importHarborTasks,
  installHarborRequirements,
  type RequirementsReport,
  requirementsReport,
  type TaskRequirements,
} from "./harbor";
export {
  DEFAULT_CUSTOMER,
  DEFAULT_JUDGE,
  DEFAULT_TASK_MODEL,
  type HarnessTaskRequest,
  type ModelPlan,
  type RequestContext,
} from "./harness-task";
export { openRun, type RunReader } from "./open-run";
export {
  PAIRED_SUITE_DIR,
  type PairEvent,
  type PairedTasks,
  type PairResult,
  type PairTasksOptions,
  pairTasks,
  STUDY_SOURCES,
} from "./pair";
export { DEFAULT_PILOT_TASKS, type PlanOptions, planRun, type RunPlan } from "./plan";
export type { PilotEstimate, RoleSpend, Spend } from "./plan-pilot";
export {
  type BeliefsReport,
  type ChallengeReport,
  type ProbeOptions,
  probeBeliefs,
  probeChallenge,
} from "./probe";
export { type ProbeRequest, probeBeliefsRequest, probeChallengeRequest } from "./probe-request";
export type { RunEvent, RunEventListener } from "./run-events";
export type { StatusWithSuites } from "./run-result";
export type { BudgetRaise } from "./run-setup";
export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  runSandboxCommand,
  SANDBOX_MECHANISMS,
  type SandboxCommandOptions,
  type SandboxCommandResult,
  type SandboxMechanism,
} from "./sandbox";
export { suiteProblem, type TaskSelection } from "./select-tasks";
export {
  isRealModelSpec,
  realModelForms,
  type ServedTotals,
  type ServeHarnessOptions,
  type ServingHarness,
  serveHarness,
} from "./serve";
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
export { type RunStatusReport, readRunStatus, type StoredProgress } from "./status";
export {
  DEFAULT_STUDY,
  type PlannedStep,
  planStudy,
  resumeStudy,
  runStudy,
  STUDY_ROLES,
  type StepSpend,
  type StudyCalls,
  type StudyEvent,
  type StudyHandle,
  type StudyOptions,
  type StudyPlan,
  type StudyPlanOptions,
  type StudyResult,
} from "./study";
export {
  type GenerateSuiteOptions,
  generateSuite,
  importTau2,
  listTasks,
  type ValidatedTasks,
  validateTasks,
} from "./tasks";
export {
  type CompareOptions,
  compareRunDirs,
  type ServingViewer,
  type ViewOptions,
  viewComparison,
  viewRun,
  writeRunReport,
} from "./view";
export { type RunningWorker, type StopOutcome, startWorker, type WorkerOptions } from "./worker";
