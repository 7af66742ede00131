/**
 * hsearch as a library: what `import … from "hsearch"` gives. The CLI is a layer over these same functions.
 */

/*
 * What hsearch prints with, for a program that prints the same: labels and directions from the metric catalogue,
 * the paired interval and p-value formats, Wilson rates, usage and the notes of a stopped run.
 */
export type { PairedRow, PairedSplit, RunComparison } from "../compare";
export { HsearchError, type HsearchErrorCode, isHsearchError, type Rng } from "../core";
export {
  FAMILIES,
  KINDS,
  type PluginTask,
  SPLITS,
  type Split,
  SUITES,
  type Suite,
  type Task,
} from "../domain";
export {
  ABSTAINED,
  ALLOW_INTERNET_VARIABLE,
  abstainDeferral,
  abstainTool,
  cutMiddle,
  type DeferralChange,
  EffectLog,
  type EpisodeOutcome,
  IMAGE_SOURCE_VARIABLE,
  IMAGE_SOURCES,
  type ImageSource,
  imageSourceChosen,
} from "../envs";
export type { Author, EffectRecord, Environment, ToolResult, ToolSpec } from "../envs/types";
export { type Harness, loadHarness, type Trajectory } from "../harness";
export type { AtifTrajectory } from "../interop";
export {
  describeRejection,
  formatUsd,
  type LearntRejection,
  type ParameterFallbacks,
  ProviderCallError,
  type ProviderClientOptions,
  type ProviderDefinition,
  type RoleUsage,
  registerProvider,
} from "../models";
export type { ChatModel, ChatRequest, ChatResponse } from "../models/types";
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
export {
  type Comparison,
  type Difference,
  type EvalReport,
  evalResumeCommand,
  type Rate,
  type RunMetricCell,
  type RunMetricTable,
  summaryRate,
  viewCommand,
  wilson,
} from "../report";
export {
  type BlockedRates,
  BUILTIN_METRICS,
  type BuiltinMetric,
  builtinMetric,
  builtinMetricsOf,
  bySuiteMetrics,
  DEFAULT_MAX_INFRA_ERROR_RATE,
  DEFAULT_RESAMPLES,
  defineMetric,
  type MeanSd,
  type Metric,
  type MetricEpisode,
  type MetricKind,
  type MetricResult,
  metricLabel,
  type ObjectiveName,
  objectiveCounts,
  type PairedDelta,
  pairedIntervalText,
  pValueText,
  storedMetric,
} from "../scoring";
export { isModulePath } from "../search";
export type { Digest, ProposerInput, SearchConfig, SearchOutcome } from "../search/types";
export { describeStoppedEarly, type RunStatus } from "../store";
export type {
  CandidateRecord,
  EvaluationRecord,
  EventRecord,
  Purpose,
  RolloutRecord,
  RoundRecord,
  RunRecord,
  UsageTotal,
} from "../store/types";
export { DEFAULT_QUEUE } from "../workers";
export { AGENT_EXIT_CODES, type AgentInput, type AgentOutcome, type AgentStatus, runAgent } from "./agent";
export { type CandidateDiff, diffCandidates, exportHarness, type RunRef } from "./candidates";
export { createModel } from "./create-model";
export { type DiffedCandidate, type DiffOptions, diffRun, type RunDiff } from "./diff";
export { type DigestOptions, digestPrompt } from "./digest";
export type { EvalOutcome } from "./eval-outcome";
export { type EvaluateOptions, evaluate } from "./evaluate";
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
export type { EvaluateModels } from "./harness-task-setup";
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
