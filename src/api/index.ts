/**
 * hsearch as a library: what `import … from "hsearch"` gives. The CLI is a layer over these same functions.
 */
export { HsearchError, type HsearchErrorCode, isHsearchError } from "../core/errors";
export type { Task } from "../domain/task";
export type { Trajectory } from "../harness/trajectory";
export {
  defineMetric,
  type Metric,
  type MetricEpisode,
  type MetricKind,
  type MetricResult,
} from "../scoring/metrics";
export type { SearchConfig } from "../search/config-schema";
export type { SearchOutcome } from "../search/run-search";
export type {
  CandidateRecord,
  EvaluationRecord,
  EventRecord,
  Purpose,
  RolloutRecord,
  RoundRecord,
  RunRecord,
  UsageTotal,
} from "../store";
export { type CandidateDiff, diffCandidates, exportHarness, type RunRef } from "./candidates";
export { type EvaluateModels, type EvaluateOptions, evaluate } from "./evaluate";
export type { EvalOutcome } from "./evaluate-in-dir";
export { openRun, type RunReader } from "./open-run";
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
