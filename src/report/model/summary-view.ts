/**
 * Stored summaries (a candidate's search summary, held-out and independent evaluations) read back defensively:
 * they are JSON written by the scorer, and a report must still render when a field is missing (an older run, a run
 * that failed half-way). Missing values come back as null and render as "–".
 */

import type { Family } from "../../domain";
import { type BuiltinMetric, builtinMetricsOf, storedMetric } from "../../scoring";
import type { JsonObject } from "../../store/types";
import { num } from "../html/format";

/** The blocked table's rows: every built-in metric of blocked episodes, from the catalogue (src/scoring/metrics). */
export const BLOCKED_METRICS: readonly BuiltinMetric[] = builtinMetricsOf("blocked");

export interface SummaryView {
  objective: number | null;
  blocked: JsonObject | null;
  feasible: JsonObject | null;
}

export function summaryView(
  summary: JsonObject | null | undefined,
  objective?: number | null,
): SummaryView | null {
  if (!summary) return null;
  return {
    objective: objective ?? num(summary.objective),
    blocked: asObject(summary.blocked),
    feasible: asObject(summary.feasible),
  };
}

function asObject(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** The rates of all blocked episodes (family undefined) or of one family. */
export function blockedRates(view: SummaryView | null, family?: Family): JsonObject | null {
  if (!view?.blocked) return null;
  if (family === undefined) return view.blocked;
  return asObject(asObject(view.blocked.by_family)?.[family]);
}

/** A built-in metric's value in a stored block of rates (all blocked episodes, or one family's). */
export function blockedMetric(rates: JsonObject | null, metric: string): number | null {
  return storedMetric(rates, metric);
}

export function feasibleMetric(view: SummaryView | null, metric: string): number | null {
  if (!view?.feasible) return null;
  return metric === "n" ? num(view.feasible.n) : storedMetric(view.feasible, metric);
}
