import type { SuiteName } from "../domain";
import { type SuiteTools, suiteRuntime } from "./suite-env";

/**
 * A suite's tools as a new environment of it lists them (`Environment.tools()` and `deferralTool`), without making
 * one: what the proposer input shows as the agent's tools, built-in suite or plug-in (its runtime's listing). A
 * terminal episode may describe its tools for the task's work directory or network; the names are these.
 */
export function suiteTools(suite: SuiteName): SuiteTools {
  return suiteRuntime(suite).tools();
}
