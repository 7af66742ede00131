import type { ChatResponse } from "../models/types";
import { REPORT_BELIEF_TOOL } from "./probe-tools";

/**
 * Reading the model's belief report (docs/DESIGN.md §6, "know"): P(feasible) from a `report_belief` call, or from a JSON
 * object in a text reply. Pure. A report that is missing, unreadable, conflicting or out of range is `invalid`
 * with the problem named; a value is never repaired or guessed (no "70%" → 0.7, no clamping, no numeric strings),
 * so every valid `p_feasible` is a finite number in [0, 1] exactly as the model gave it.
 */
export type BeliefParse =
  | { status: "valid"; p_feasible: number; reason: string; via: "tool" | "json" }
  | { status: "invalid"; problem: string };

export function parseBeliefReport(reply: Pick<ChatResponse, "content" | "tool_calls">): BeliefParse {
  const calls = reply.tool_calls.filter((call) => call.name === REPORT_BELIEF_TOOL);
  if (calls.length > 0) return agree(calls.map((call) => readReport(call.arguments, "tool")));
  const text = reply.content?.trim() ?? "";
  if (text === "") return invalid(`no ${REPORT_BELIEF_TOOL} call and no text reply`);
  const objects = jsonObjectsIn(text).filter((object) => "p_feasible" in object);
  if (objects.length === 0)
    return invalid(`no ${REPORT_BELIEF_TOOL} call and no JSON object with p_feasible in the reply`);
  return agree(objects.map((object) => readReport(object, "json")));
}

function invalid(problem: string): BeliefParse {
  return { status: "invalid", problem };
}

function readReport(value: Record<string, unknown>, via: "tool" | "json"): BeliefParse {
  const p = value.p_feasible;
  if (typeof p !== "number" || !Number.isFinite(p) || p < 0 || p > 1)
    return invalid(`p_feasible must be a number in [0, 1], got ${describe(p)}`);
  const reason = value.reason;
  if (reason !== undefined && typeof reason !== "string")
    return invalid(`reason must be text, got ${describe(reason)}`);
  return { status: "valid", p_feasible: p, reason: reason ?? "", via };
}

/** Several reports count only when each is valid and they give the same number. */
function agree(reports: readonly BeliefParse[]): BeliefParse {
  const bad = reports.find((report) => report.status === "invalid");
  if (bad) return bad;
  const values = new Set(reports.map((report) => (report.status === "valid" ? report.p_feasible : null)));
  if (values.size > 1) return invalid(`conflicting reports: p_feasible ${[...values].join(" and ")}`);
  return reports[0] as BeliefParse;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  return typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
}

/**
 * JSON objects a text reply may hold: the whole text if it is JSON; else every fenced code block that is; else the
 * span from the first "{" to the last "}" (one object inside prose).
 */
function jsonObjectsIn(text: string): Array<Record<string, unknown>> {
  const objectsOf = (value: unknown) => (Array.isArray(value) ? value : [value]).filter(isObject);
  const whole = tryParse(text);
  if (whole !== undefined) return objectsOf(whole);
  const fenced = [...text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)]
    .map((match) => tryParse((match[1] ?? "").trim()))
    .filter((value) => value !== undefined);
  if (fenced.length > 0) return fenced.flatMap(objectsOf);
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  return first >= 0 && last > first ? objectsOf(tryParse(text.slice(first, last + 1))) : [];
}

function tryParse(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
