import { frozenJson } from "../core";
import { categoryParameter as category } from "../envs";
import type { ToolSpec } from "../models/types";

/**
 * Tools the harness adds to the suite's tools for its protocols. The certified deferral is the environment's
 * (src/envs/deferral.ts): retail's `abstain` tool, the terminal's `infeasible.md` file.
 */
export const REPORT_TOOL = "submit_report";
export const ASSESS_TOOL = "state_assessment";

/** A protocol tool: its arguments one closed object (nothing else allowed), frozen like every tool spec. */
function protocolTool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
): ToolSpec {
  return frozenJson({
    name,
    description,
    parameters: { type: "object", properties, required, additionalProperties: false },
  });
}

export const reportTool: ToolSpec = protocolTool(
  REPORT_TOOL,
  "Submit your final structured report: done, or blocked with the blocker and the evidence.",
  {
    status: { type: "string", enum: ["done", "blocked"] },
    category,
    blocker: { type: "string" },
    evidence: { type: "string" },
  },
  ["status"],
);

export const assessTool: ToolSpec = protocolTool(
  ASSESS_TOOL,
  "State your assessment of the request: feasible, or blocked (with the category and the reason). Once you state " +
    "a blocker, tools that change state are disabled.",
  {
    status: { type: "string", enum: ["feasible", "blocked"] },
    category,
    reason: { type: "string" },
  },
  ["status", "reason"],
);
