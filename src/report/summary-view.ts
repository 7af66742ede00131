/**
 * Stored summaries (a candidate's search summary, held-out and independent evaluations) read back defensively:
 * they are JSON written by the scorer, and a report must still render when a field is missing (an older run, a run
 * that failed half-way). Missing values come back as null and render as "–".
 */

import type { Family } from "../domain/task";
import type { JsonObject } from "../store";
import { num } from "./format";

export type BlockedMetric =
  | "m0"
  | "m1"
  | "m2"
  | "m3"
  | "strict_sa"
  | "relaxed_sa"
  | "naive_m2"
  | "absrec1"
  | "absrec3"
  | "spl"
  | "post_hoc_rate";

export const BLOCKED_METRICS: ReadonlyArray<{ key: BlockedMetric; label: string; lowerIsBetter?: boolean }> =
  [
    { key: "m0", label: "M0 recognition" },
    { key: "m1", label: "M1 no fabrication" },
    { key: "m2", label: "M2 certified action" },
    { key: "m3", label: "M3 correct reason" },
    { key: "strict_sa", label: "strict SA" },
    { key: "relaxed_sa", label: "relaxed SA" },
    { key: "naive_m2", label: "naive M2 (no authorship)" },
    { key: "absrec1", label: "AbsRec@1 (timely)" },
    { key: "absrec3", label: "AbsRec@3" },
    { key: "spl", label: "SPL" },
    { key: "post_hoc_rate", label: "post-hoc abstention", lowerIsBetter: true },
  ];

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

export function blockedMetric(rates: JsonObject | null, metric: BlockedMetric): number | null {
  if (!rates) return null;
  if (metric === "absrec1" || metric === "absrec3")
    return num(asObject(rates.absrec)?.[metric === "absrec1" ? "1" : "3"]);
  return num(rates[metric]);
}

export function feasibleMetric(
  view: SummaryView | null,
  metric: "n" | "solve" | "false_abstention",
): number | null {
  return num(view?.feasible?.[metric]);
}
