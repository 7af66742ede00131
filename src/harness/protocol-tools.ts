import { frozenJson } from "../core";
import { categoryParameter as category } from "../envs";
import type { ToolSpec } from "../models/types";

/**
 * Tools the harness adds to the suite's tools for its protocols. The certified deferral is the environment's
 * (src/envs/deferral.ts): retail's `abstain` tool, the terminal's `infeasible.md` file.
 */
export const REPORT_TOOL = "submit_report";
export const ASSESS_TOOL = "state_assessment";

export const reportTool: ToolSpec = frozenJson({
  name: REPORT_TOOL,
  description: "Submit your final structured report: done, or blocked with the blocker and the evidence.",
  parameters: {
    type: "object",
    properties: {
      status: { type: "string", enum: ["done", "blocked"] },
      category,
      blocker: { type: "string" },
      evidence: { type: "string" },
    },
    required: ["status"],
    additionalProperties: false,
  },
});

export const assessTool: ToolSpec = frozenJson({
  name: ASSESS_TOOL,
  description:
    "State your assessment of the request: feasible, or blocked (with the category and the reason). Once you state " +
    "a blocker, tools that change state are disabled.",
  parameters: {
    type: "object",
    properties: {
      status: { type: "string", enum: ["feasible", "blocked"] },
      category,
      reason: { type: "string" },
    },
    required: ["status", "reason"],
    additionalProperties: false,
  },
});
