/**
 * The metric catalogue: the built-in metrics and a run's own (from its metric modules), under unique names. Tables
 * name a metric by its key and read its label, direction and reducer here, never from a table of their own.
 */
import { HsearchError } from "../../core";
import type { EpisodeScore } from "../episode";
import { BUILTIN_METRICS, type BuiltinMetric } from "./builtin";
import type { Metric, MetricKind } from "./metric";

const BY_NAME = new Map(BUILTIN_METRICS.map((metric) => [metric.name, metric]));

/** A built-in metric by its key; an unknown key is a programming error, not input. */
export function builtinMetric(name: string): BuiltinMetric {
  const metric = BY_NAME.get(name);
  if (!metric) throw new Error(`no built-in metric '${name}'`);
  return metric;
}

export function isBuiltinMetric(name: string): boolean {
  return BY_NAME.has(name);
}

/** A metric's value in a stored summary block (a blocked or feasible block, or one family's): null when absent. */
export function storedMetric(
  block: Readonly<Record<string, unknown>> | null | undefined,
  name: string,
): number | null {
  const value = block?.[name];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The label of a built-in metric (`short`: a terminal column's), else the key itself. */
export function metricLabel(name: string, style: "label" | "short" = "label"): string {
  const metric = BY_NAME.get(name);
  if (!metric) return name;
  return style === "short" ? (metric.short ?? metric.label) : metric.label;
}

/** The label with "(lower is better)" where it is, as a plot's title says it. */
export function directedLabel(metric: Pick<Metric, "label" | "higherIsBetter">): string {
  return metric.higherIsBetter ? metric.label : `${metric.label} (lower is better)`;
}

/** The built-in metrics defined on one kind of episode only (a blocked or a feasible table's rows), in order. */
export function builtinMetricsOf(kind: MetricKind): readonly BuiltinMetric[] {
  return BUILTIN_METRICS.filter((metric) => metric.kinds.length === 1 && metric.kinds[0] === kind);
}

/**
 * The metrics of the per-suite tables and paired rows (the entries marked `bySuite`), in catalogue order. Each is a
 * rate of episodes: one marked so with another reducer is a programming error.
 */
export function bySuiteMetrics(): readonly BuiltinMetric[] {
  const metrics = BUILTIN_METRICS.filter((metric) => metric.bySuite);
  for (const metric of metrics)
    if (metric.reducer !== "rate")
      throw new Error(`built-in metric '${metric.name}' is per suite but not a rate`);
  return metrics;
}

/** Whether an episode's score has a built-in metric (true for a rate's pass; an infrastructure error has none). */
export function episodeHas(metric: BuiltinMetric, score: EpisodeScore): boolean {
  return score.kind !== "infra_error" && metric.scoreValue(score) === true;
}

export interface MetricCatalogue {
  readonly builtin: readonly BuiltinMetric[];
  /** The run's own metrics, in the order its config names their modules. */
  readonly custom: readonly Metric[];
  get(name: string): Metric | undefined;
}

/** The built-in metrics and `custom`; a custom metric may not take a name already in use. */
export function metricCatalogue(custom: readonly Metric[] = []): MetricCatalogue {
  const names = new Map<string, Metric>(BY_NAME);
  for (const metric of custom) {
    if (names.has(metric.name))
      throw new HsearchError(
        "bad_input",
        `metric '${metric.name}' is defined twice${isBuiltinMetric(metric.name) ? " (a built-in metric has that name)" : ""}: give it another name`,
        { field: "metrics" },
      );
    names.set(metric.name, metric);
  }
  return { builtin: BUILTIN_METRICS, custom, get: (name) => names.get(name) };
}
