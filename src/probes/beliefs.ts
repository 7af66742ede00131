import { badInput, isHsearchError, mapPool } from "../core";
import type { Family, Kind, Task } from "../domain";
import type { ImageSource } from "../envs";
import { environmentChoicesOf } from "../envs";
import { planRollouts } from "../eval";
import type { Harness, Trajectory } from "../harness";
import { setupFailureTrajectory } from "../harness";
import type { ChatModel, ChatRequest } from "../models/types";
import {
  type BeliefReport,
  type BootstrapOptions,
  CALIBRATION_METRICS,
  type CalibrationMetric,
  calibrationReport,
  type Estimate,
  pairedCalibrationDifference,
  pairKey,
} from "../scoring";
import { parseBeliefReport } from "./belief-report";
import { type OpenRollout, type OpenRolloutInput, withProbeRollout } from "./open-rollout";
import { DEFAULT_BELIEF_PROMPT, reportBeliefTool } from "./probe-tools";

/**
 * The belief probe (docs/DESIGN.md §6, "know"): per task a read-only episode (every write tool refused), then one final
 * turn that offers only `report_belief` and asks for P(feasible). The report is parsed strictly (belief-report.ts);
 * an invalid or missing one is recorded as invalid, and a provider failure as an infrastructure error — both
 * without a value and left out of the metrics (and counted). Metrics: AUROC, Brier and ECE₁₀ with seeded
 * percentile-bootstrap 95% intervals; two harnesses are compared by the paired bootstrap over source pairs.
 */
export interface BeliefProbeOptions {
  harness: Harness;
  tasks: readonly Task[];
  model: ChatModel;
  seed: number;
  concurrency: number;
  customerModel?: ChatModel;
  /** Where a terminal task that names a prebuilt image gets it (default `auto`). */
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
  createEnvironment?: OpenRolloutInput["createEnvironment"];
  onRequest?: (request: ChatRequest) => void;
  onEpisode?: (done: number, total: number) => void;
  /** Each task's row with the trajectory of its read-only episode, as soon as it is done (to keep it). */
  onRow?: (row: BeliefTaskRow, trajectory: Trajectory) => void | Promise<void>;
}

export type BeliefStatus = "valid" | "invalid" | "infra_error";

export interface BeliefTaskRow {
  id: string;
  feasible: boolean;
  kind: Kind;
  family: Family | null;
  /** Source pair: a feasible task's own id, a blocked task's `source` (its own id when it has none). */
  pair: string;
  /** The reported P(feasible); null unless `status` is valid. */
  p: number | null;
  status: BeliefStatus;
  /** The model's stated reason (valid reports). */
  reason?: string;
  /** What was wrong with the report, or the infrastructure error. */
  problem?: string;
  /** How the read-only episode ended. */
  episode_end: string;
  episode_steps: number;
}

export async function collectBeliefs(options: BeliefProbeOptions): Promise<BeliefTaskRow[]> {
  const jobs = planRollouts(options.tasks, 1, options.seed);
  let done = 0;
  return mapPool(jobs, options.concurrency, async (job) => {
    const input = {
      harness: options.harness,
      task: job.task,
      model: options.model,
      seed: job.seed,
      repeat: job.repeat,
      readOnly: true,
      verify: false,
      customerModel: options.customerModel,
      createEnvironment: options.createEnvironment,
      onRequest: options.onRequest,
      ...environmentChoicesOf(options),
    };
    const { row, trajectory } = await withProbeRollout(
      input,
      async (rollout) => ({ row: await beliefRow(rollout), trajectory: rollout.trajectory }),
      (error) => ({
        row: {
          ...taskFields(job.task),
          episode_end: "infra_error",
          episode_steps: 0,
          p: null,
          status: "infra_error",
          problem: error,
        } satisfies BeliefTaskRow,
        trajectory: setupFailureTrajectory(input, error),
      }),
    );
    await options.onRow?.(row, trajectory);
    done++;
    options.onEpisode?.(done, jobs.length);
    return row;
  });
}

async function beliefRow(rollout: OpenRollout): Promise<BeliefTaskRow> {
  const { task, episode } = rollout;
  const base = { ...taskFields(task), episode_end: episode.end.reason, episode_steps: episode.steps };
  if (episode.end.reason === "infra_error")
    return { ...base, p: null, status: "infra_error", problem: episode.end.error ?? "infrastructure error" };
  try {
    const reply = await rollout.engine.ask(DEFAULT_BELIEF_PROMPT, "belief", [reportBeliefTool]);
    const parsed = parseBeliefReport(reply);
    if (parsed.status === "invalid") return { ...base, p: null, status: "invalid", problem: parsed.problem };
    return { ...base, p: parsed.p_feasible, status: "valid", reason: parsed.reason };
  } catch (error) {
    if (isHsearchError(error, "model_reply"))
      return { ...base, p: null, status: "invalid", problem: `unusable reply: ${error.message}` };
    if (isHsearchError(error, "provider"))
      return { ...base, p: null, status: "infra_error", problem: error.message };
    throw error;
  }
}

function taskFields(task: Task) {
  return {
    id: task.id,
    feasible: task.kind === "feasible",
    kind: task.kind,
    family: task.family ?? null,
    pair: lenientPair(task),
  };
}

function lenientPair(task: Task): string {
  return task.kind === "blocked" ? (task.source ?? task.id) : task.id;
}

/** Rows as the scorer's reports: every row keeps its pair; only valid rows carry a value. */
export function beliefReports(rows: readonly BeliefTaskRow[]): BeliefReport[] {
  return rows.map((row) => ({ task_id: row.id, pair: row.pair, feasible: row.feasible, p_feasible: row.p }));
}

/** A metric as printed and as JSON: undefined values keep their reason, never NaN or 0. */
export interface MetricReport {
  value: number | null;
  ci: [number, number] | null;
  reason?: string;
  resamples_skipped?: number;
}

export const METRIC_KEYS: Record<CalibrationMetric, "auroc" | "brier" | "ece10"> = {
  auroc: "auroc",
  brier: "brier",
  ece: "ece10",
};

export interface BeliefSummary {
  n: number;
  n_valid: number;
  n_invalid: number;
  n_infra_error: number;
  auroc: MetricReport;
  brier: MetricReport;
  ece10: MetricReport;
}

export function summariseBeliefs(rows: readonly BeliefTaskRow[], bootstrap: BootstrapOptions): BeliefSummary {
  const report = calibrationReport(beliefReports(rows), bootstrap);
  return {
    n: rows.length,
    n_valid: report.n_valid,
    n_invalid: rows.filter((row) => row.status === "invalid").length,
    n_infra_error: rows.filter((row) => row.status === "infra_error").length,
    auroc: metricReport(report.auroc),
    brier: metricReport(report.brier),
    ece10: metricReport(report.ece),
  };
}

export interface BeliefComparison {
  /** Source pairs resampled. */
  pairs: number;
  /** metric(first) − metric(second) with paired-bootstrap intervals. */
  auroc: MetricReport;
  brier: MetricReport;
  ece10: MetricReport;
}

/**
 * Paired differences first − second over blocked–feasible source pairs. Both row lists must be the same tasks;
 * every blocked task needs its `source` (checked here, so a missing one is bad input, not a silent singleton).
 */
export function compareBeliefs(
  tasks: readonly Task[],
  first: readonly BeliefTaskRow[],
  second: readonly BeliefTaskRow[],
  bootstrap: BootstrapOptions,
): BeliefComparison {
  for (const task of tasks) pairKey(task);
  return beliefDifference(first, second, bootstrap);
}

/** The same from the rows alone (each keeps its source pair): what a probe stored, compared afterwards. */
export function beliefDifference(
  first: readonly BeliefTaskRow[],
  second: readonly BeliefTaskRow[],
  bootstrap: BootstrapOptions,
): BeliefComparison {
  const ids = (rows: readonly BeliefTaskRow[]) => rows.map((row) => row.id).join("\n");
  if (ids(first) !== ids(second)) throw badInput("compared belief probes must cover the same tasks in order");
  const out: Partial<Record<"auroc" | "brier" | "ece10", MetricReport>> = {};
  let pairs = 0;
  for (const metric of CALIBRATION_METRICS) {
    const difference = pairedCalibrationDifference(
      beliefReports(first),
      beliefReports(second),
      metric,
      bootstrap,
    );
    pairs = difference.pairs;
    out[METRIC_KEYS[metric]] = metricReport(difference.difference);
  }
  return { pairs, auroc: out.auroc!, brier: out.brier!, ece10: out.ece10! };
}

function metricReport(estimate: Estimate): MetricReport {
  if (estimate.value === null) return { value: null, ci: null, reason: estimate.reason };
  return {
    value: estimate.value,
    ci: estimate.ci,
    ...(estimate.ci === null ? { reason: estimate.ci_reason } : {}),
    resamples_skipped: estimate.resamples_skipped,
  };
}
