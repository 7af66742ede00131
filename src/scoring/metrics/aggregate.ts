/** A metric over episodes: k/n with a 95% Wilson interval (a rate), or a mean over n. */
import { HsearchError, isHsearchError } from "../../core";
import type { BlockedEpisodeScore, FeasibleEpisodeScore } from "../episode";
import { wilson } from "../wilson";
import type { BuiltinMetric } from "./builtin";
import type { Metric, MetricEpisode } from "./metric";

export interface MetricResult {
  metric: string;
  reducer: Metric["reducer"];
  /** Episodes the metric counted (of its kinds, value not null). */
  n: number;
  /** The rate or the mean; null when n = 0. */
  value: number | null;
  /** A rate's passes and its 95% Wilson interval; null for a mean. */
  k: number | null;
  low: number | null;
  high: number | null;
}

/**
 * Reduces `metric` over the episodes of its kinds. A value of the wrong type (a rate's must be boolean, a mean's a
 * finite number) or one that throws is bad input naming the metric and the episode.
 */
export function aggregateMetric(metric: Metric, episodes: readonly MetricEpisode[]): MetricResult {
  return reduce(
    metric,
    episodes.filter((episode) => metric.kinds.includes(episode.kind)).map((e) => episodeValue(metric, e)),
  );
}

/** Reduces a built-in metric over episode scores alone (what a summary is folded from). */
export function aggregateScores(
  metric: BuiltinMetric,
  scores: ReadonlyArray<BlockedEpisodeScore | FeasibleEpisodeScore>,
): MetricResult {
  return reduce(
    metric,
    scores.filter((score) => metric.kinds.includes(score.kind)).map((score) => metric.scoreValue(score)),
  );
}

function reduce(metric: Metric, all: ReadonlyArray<boolean | number | null>): MetricResult {
  const values = all.filter((value) => value !== null);
  const n = values.length;
  if (metric.reducer === "rate") {
    const rate = wilson(values.filter((v) => v === true).length, n);
    return {
      metric: metric.name,
      reducer: "rate",
      n,
      value: rate.rate,
      k: rate.k,
      low: rate.low,
      high: rate.high,
    };
  }
  const sum = values.reduce<number>((total, v) => total + Number(v), 0);
  return {
    metric: metric.name,
    reducer: "mean",
    n,
    value: n === 0 ? null : sum / n,
    k: null,
    low: null,
    high: null,
  };
}

/** A value as the researcher would write it: NaN and Infinity by name (JSON has neither and says null). */
function shown(value: unknown): string {
  return typeof value === "number" || typeof value === "bigint"
    ? String(value)
    : (JSON.stringify(value) ?? String(value));
}

function episodeValue(metric: Metric, episode: MetricEpisode): boolean | number | null {
  const where = `metric '${metric.name}' on episode ${episode.task_id}#${episode.repeat}`;
  let value: unknown;
  try {
    value = metric.value(episode);
  } catch (error) {
    // A module's metric names its module already (the plug-in hook wrapper).
    if (isHsearchError(error)) throw error;
    throw new HsearchError(
      "bad_input",
      `${where} threw: ${error instanceof Error ? error.message : String(error)}`,
      {
        field: "metrics",
      },
    );
  }
  if (value === null || value === undefined) return null;
  if (metric.reducer === "rate" && typeof value !== "boolean")
    throw new HsearchError(
      "bad_input",
      `${where}: a rate's value must be true, false or null, got ${shown(value)}`,
      {
        field: "metrics",
      },
    );
  if (metric.reducer === "mean" && (typeof value !== "number" || !Number.isFinite(value)))
    throw new HsearchError(
      "bad_input",
      `${where}: a mean's value must be a finite number or null, got ${shown(value)}`,
      {
        field: "metrics",
      },
    );
  return value as boolean | number;
}
