/**
 * A run's own metrics (its config's metric modules) over its stored episodes: for the seed and the final harness on
 * every split they ran, each metric reduced from the episodes' scores and trajectories (src/scoring/metrics). What
 * `hsearch status`, the report and the viewer show of them; none of them knows a metric by name.
 */
import { aggregateMetric, type Metric, type MetricEpisode, type MetricResult } from "../../scoring";
import { loadRunMetricModules, type MetricModuleRef, type RunMetricModules } from "../../search";
import type { Purpose, RolloutRecord, RunReader, RunStatus } from "../../store/types";

export interface RunMetricCell {
  /** The harness: seed, selected or incumbent. */
  role: "seed" | "selected" | "incumbent";
  commit: string;
  split: Exclude<Purpose, "diagnostic">;
  result: MetricResult;
}

export interface RunMetricRow {
  metric: string;
  label: string;
  description: string | null;
  reducer: Metric["reducer"];
  higherIsBetter: boolean;
  cells: RunMetricCell[];
  /** Why the metric has no values (its code threw, or returned a value of the wrong type), else null. */
  problem: string | null;
}

export interface RunMetricTable {
  /** Each stored module: its metrics, or why it gives none now (gone, broken), and whether it was edited since. */
  modules: RunMetricModules["modules"];
  rows: RunMetricRow[];
}

/** A run's metric modules, imported again from the paths its config stored (never throws for a module). */
export function runMetricModules(store: RunReader): Promise<RunMetricModules> {
  const config = store.getRun()?.config as { metrics?: MetricModuleRef[] } | undefined;
  return loadRunMetricModules(config?.metrics);
}

/** Scored episodes as metrics see them; a trajectory is read from the run's log only when a metric asks for it. */
export function metricEpisodes(store: RunReader, rollouts: readonly RolloutRecord[]): MetricEpisode[] {
  return rollouts.flatMap((rollout): MetricEpisode[] => {
    const score = rollout.scores;
    if (score.kind !== "blocked" && score.kind !== "feasible") return [];
    return [
      {
        task_id: rollout.task_id,
        kind: score.kind,
        family: rollout.family,
        repeat: rollout.repeat,
        score,
        end_reason: rollout.end_reason,
        steps: rollout.steps,
        input_tokens: rollout.input_tokens,
        output_tokens: rollout.output_tokens,
        usd: rollout.usd,
        trajectory: () => store.readTrajectory(rollout),
      },
    ];
  });
}

const SPLITS = ["search", "heldout", "independent"] as const;

/**
 * The table of `loaded`'s metrics: for the seed and the final harness (the selected one, else the incumbent; once
 * when they are the same), on each split they have scored episodes of. Null when the run names no metric module.
 */
export function runMetricTable(
  store: RunReader,
  status: RunStatus,
  loaded: RunMetricModules,
): RunMetricTable | null {
  if (loaded.modules.length === 0) return null;
  const seed = status.rounds[0]?.proposals[0]?.commit ?? null;
  const finalCommit = (status.selected ?? status.incumbent)?.commit ?? null;
  const harnesses: Array<{ role: RunMetricCell["role"]; commit: string }> = [];
  if (seed) harnesses.push({ role: "seed", commit: seed });
  if (finalCommit && finalCommit !== seed)
    harnesses.push({ role: status.selected ? "selected" : "incumbent", commit: finalCommit });
  const episodes = new Map<string, MetricEpisode[]>();
  for (const { commit } of harnesses)
    for (const split of SPLITS)
      episodes.set(`${commit}:${split}`, metricEpisodes(store, store.listRollouts(commit, split)));
  const rows = loaded.metrics.map((metric): RunMetricRow => {
    const row: RunMetricRow = {
      metric: metric.name,
      label: metric.label,
      description: metric.description ?? null,
      reducer: metric.reducer,
      higherIsBetter: metric.higherIsBetter,
      cells: [],
      problem: null,
    };
    try {
      for (const split of SPLITS)
        for (const { role, commit } of harnesses) {
          const scored = episodes.get(`${commit}:${split}`) ?? [];
          if (scored.length === 0) continue;
          const result = aggregateMetric(metric, scored);
          // A split with no episode of the metric's kinds (independent for a blocked-only metric) has no cell.
          if (result.n > 0) row.cells.push({ role, commit, split, result });
        }
    } catch (error) {
      // A metric's own code failing is shown beside it; the rest of the page still renders.
      row.cells = [];
      row.problem = error instanceof Error ? error.message : String(error);
    }
    return row;
  });
  return { modules: loaded.modules, rows };
}
