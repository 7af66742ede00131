import type { Suite } from "../domain/task";
import type { ToolSpec } from "../models/types";
import { abstainTool } from "./deferral";
import { retailToolSpecs } from "./retail/tool-specs";
import { TERMINAL_TOOLS } from "./terminal/terminal-env";

/**
 * A suite's tools as a new environment of it lists them (`Environment.tools()` and `deferralTool`), without making
 * one: what the proposer input shows as the agent's tools. A terminal episode may describe its tools for the task's
 * work directory or network; the names are these.
 */
export function suiteTools(suite: Suite): { tools(): readonly ToolSpec[]; deferralTool?: ToolSpec } {
  return suite === "retail"
    ? { tools: retailToolSpecs, deferralTool: abstainTool }
    : { tools: () => TERMINAL_TOOLS };
}
