import type { SuiteTools } from "../envs";
import type { ToolSpec } from "../models/types";
import type { Harness } from "./load";
import { assessTool, reportTool } from "./protocol-tools";

export type { SuiteTools };

/**
 * The tools the agent is offered under this harness, in the order the model sees them: the suite's, its deferral
 * tool, then the protocol tools the harness switches on. The one list: the episode engine offers it (given its
 * environment) and the proposer input shows it (given the suite's listing, src/envs/suite-tools.ts), so what a
 * proposer is told the agent has is what the agent has.
 */
export function agentTools(harness: Harness, suite: SuiteTools): ToolSpec[] {
  const { protocols } = harness.config;
  const tools = [...suite.tools()];
  if (suite.deferralTool) tools.push(suite.deferralTool);
  if (protocols.effect_gate.enabled) tools.push(assessTool);
  if (protocols.report.enabled) tools.push(reportTool);
  return tools;
}
