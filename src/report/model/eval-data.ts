/**
 * The report of one evaluation (`hsearch eval`): the object `eval --json` prints, built from episode scores (pure),
 * and the same read back from an evaluation directory — finished, or still running or killed (then from the episodes
 * stored so far). `hsearch status`, `report` and `view` of an evaluation directory all read it from here.
 */

import { type EvalConfig, evaluationKey, rolloutSeed, storedEvaluationConfig } from "../../eval";
import type { ModelRole, RoleUsage } from "../../models";
import {
  bySuiteMetrics,
  type EpisodeScore,
  type EvalSummary,
  episodeHas,
  summarize,
  type TaskRow,
  taskRows,
} from "../../scoring";
import { type RunStatus, usageOf } from "../../store";
import type { RolloutRecord, RunReader, RunRecord, UsageTotal } from "../../store/types";
import { type Rate, wilson } from "./compare";

export interface EvalReport {
  harness: string;
  model: string;
  seed: number;
  repeats: number;
  summary: EvalSummary & {
    /** Billed calls, tokens and cost of every role together; cached calls apart; usd null when unknown. */
    usage: RoleUsage & { by_role: Record<ModelRole, RoleUsage> };
  };
  tasks: TaskRow[];
  /**
   * Per suite, each metric the catalogue marks `bySuite` (strict SA on blocked episodes, solve and false abstention
   * on feasible ones) under its name, with k/n over the episodes it is defined on and a 95% Wilson interval (a mixed
   * selection otherwise shows only pooled figures).
   */
  by_suite: Record<string, Record<string, Rate>>;
  /** Each infrastructure error with its message (a task whose setup failed: the setup's output). */
  infra_error_details: Array<{ task_id: string; repeat: number; error: string }>;
}

export interface EvalReportInput {
  harness: string;
  model: string;
  seed: number;
  repeats: number;
  scores: readonly EpisodeScore[];
  suiteOf: ReadonlyMap<string, string>;
  /** Usage by role and model (every session of the evaluation). */
  usage: readonly UsageTotal[];
}

export function evalReport(input: EvalReportInput): EvalReport {
  const { scores } = input;
  const usage = usageOf(input.usage);
  return {
    harness: input.harness,
    model: input.model,
    seed: input.seed,
    repeats: input.repeats,
    summary: {
      ...summarize(scores),
      usage: {
        calls: usage.calls,
        cached_calls: usage.cached_calls,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_read_tokens: usage.cache_read_tokens,
        cache_write_tokens: usage.cache_write_tokens,
        usd: usage.usd,
        by_role: usage.by_role,
      },
    },
    tasks: taskRows(scores),
    by_suite: suiteRates(scores, input.suiteOf),
    infra_error_details: scores.flatMap((score) =>
      score.kind === "infra_error"
        ? [{ task_id: score.task_id, repeat: score.repeat, error: score.error }]
        : [],
    ),
  };
}

/** Rates per suite with k/n and intervals, from the scored episodes (infrastructure errors left out). */
function suiteRates(
  scores: readonly EpisodeScore[],
  suiteOf: ReadonlyMap<string, string>,
): EvalReport["by_suite"] {
  const out: EvalReport["by_suite"] = {};
  const suites = [...new Set(scores.map((s) => suiteOf.get(s.task_id) ?? "unknown"))].sort();
  for (const suite of suites) {
    const mine = scores.filter((s) => (suiteOf.get(s.task_id) ?? "unknown") === suite);
    out[suite] = Object.fromEntries(
      bySuiteMetrics().map((metric) => {
        const defined = mine.filter((s) => s.kind !== "infra_error" && metric.scoreValue(s) !== null);
        return [metric.name, wilson(defined.filter((s) => episodeHas(metric, s)).length, defined.length)];
      }),
    );
  }
  return out;
}

/** An evaluation directory as status, report and view show it. */
export interface StoredEvaluation {
  /** The evaluation directory. */
  dir: string;
  run: RunRecord;
  config: EvalConfig;
  /** The evaluated harness's commit (its candidate). */
  commit: string;
  /** Over the episodes stored so far: all of them once the evaluation finished. */
  report: EvalReport;
  /** Episodes planned (tasks × repeats) and stored with an outcome so far. */
  planned: number;
  stored: number;
  /** Every stored episode, in plan order (task, then repeat). */
  rollouts: RolloutRecord[];
  /** Every role's usage over the evaluation's sessions, as a run's status has it. */
  usage: RunStatus["usage"];
}

export function loadStoredEvaluation(store: RunReader): StoredEvaluation {
  const run = store.getRun();
  if (!run) throw new Error("no run recorded");
  const config = storedEvaluationConfig(run, "eval", store.paths.db);
  const commit = config.harness.commit;
  const byKey = new Map(store.listRollouts(commit).map((rollout) => [rollout.key, rollout] as const));
  const taskIds = config.tasks.ids;
  const planned = taskIds.flatMap((task) =>
    Array.from({ length: config.repeats }, (_, repeat) =>
      evaluationKey(commit, { task: { id: task }, seed: rolloutSeed(config.seed, task, repeat), repeat }),
    ),
  );
  const rollouts = planned.flatMap((key) => {
    const rollout = byKey.get(key);
    return rollout ? [rollout] : [];
  });
  const report = evalReport({
    harness: config.harness.label,
    model: config.models.agent,
    seed: config.seed,
    repeats: config.repeats,
    scores: rollouts.map((rollout) => rollout.scores as EpisodeScore),
    suiteOf: new Map(Object.entries(config.tasks.suites)),
    usage: store.usageTotals(),
  });
  return {
    dir: store.paths.dir,
    run,
    config,
    commit,
    report,
    planned: planned.length,
    stored: rollouts.length,
    rollouts,
    usage: {
      rollouts: rollouts.length,
      cached_rollouts: rollouts.filter((r) => r.from_cache).length,
      ...usageOf(store.usageTotals()),
    },
  };
}
