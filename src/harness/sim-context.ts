import type { AgentTask, Family, Kind, SimCues, SuiteName } from "../domain";
import type { ChatRequest, ProviderOptions } from "../models/types";
import { DEFAULT_PROMPTS } from "./default-prompts";
import type { Harness } from "./load";

/**
 * What the simulator reads besides the messages (docs/DESIGN.md §5): the structured harness (protocols and playbook rules,
 * not prose) and the task's sim cues. Built by the episode engine and passed as the `sim` provider option, so real
 * providers ignore it.
 */
export interface SimContext {
  suite: SuiteName;
  task_id: string;
  kind: Kind;
  /** A blocked task's family (not protected: it is part of the task as the agent's loop holds it). */
  family?: Family;
  cues: SimCues;
  protocols: {
    abandon: boolean;
    report: boolean;
    self_check: boolean;
    harness_control: boolean;
    effect_gate: boolean;
  };
  playbook: Array<{
    id: string;
    family?: string;
    patterns: string[];
    then: "abstain" | "verify" | "continue";
  }>;
  max_steps: number;
  /**
   * The harness's own prose the agent reads (not the policy, tool or protocol descriptions every harness shares): the
   * text of system.md outside its placeholders, and the self-check prompt when that protocol is on. The simulator
   * reads only how cautious it is (src/sim/README.md, "Wording").
   */
  prose: { system: string; self_check: string };
  /** The suite's tools that change state. */
  write_tools: string[];
  /**
   * How the environment takes the certified deferral: its deferral tool (name and parameters, as the agent is offered
   * it) or the file whose writing defers. Absent in contexts made before environments said so (tests).
   */
  deferral?: SimDeferral;
  /** "main" for the episode; "self_check", "report", "challenge", "belief" for the protocol turns. */
  phase: "main" | "self_check" | "report" | "challenge" | "belief";
  /**
   * The request answers the harness's continue message: the agent's previous turn called no tool and no customer
   * answered it (docs/DESIGN.md §4).
   */
  continued: boolean;
}

export type SimPhase = SimContext["phase"];

export type SimDeferral = { tool: string; parameters: Record<string, unknown> } | { file: string };

/** The environment's deferral as the simulator reads it (Environment.deferralTool / deferralFile). */
export function simDeferralOf(env: {
  deferralTool?: { name: string; parameters: Record<string, unknown> };
  deferralFile?: string;
}): SimDeferral | undefined {
  if (env.deferralTool) return { tool: env.deferralTool.name, parameters: env.deferralTool.parameters };
  if (env.deferralFile) return { file: env.deferralFile };
  return undefined;
}

/** The provider options that carry `context` to the simulator. */
export function simOptions(context: SimContext): ProviderOptions {
  return { sim: context };
}

/** The simulator context of a request, if the agent loop set one (the loop is its only writer). */
export function simContextOf(request: ChatRequest): SimContext | undefined {
  return request.providerOptions?.sim as SimContext | undefined;
}

/** The simulator's view of one request of an episode (pure). */
export function simContextFor(
  harness: Harness,
  task: AgentTask,
  phase: SimPhase,
  writeTools: ReadonlySet<string>,
  continued = false,
  deferral?: SimDeferral,
): SimContext {
  const { protocols } = harness.config;
  return {
    suite: task.suite,
    task_id: task.id,
    kind: task.kind,
    ...(task.family ? { family: task.family } : {}),
    cues: task.sim ?? { steps: [] },
    protocols: {
      abandon: protocols.abandon.enabled,
      report: protocols.report.enabled,
      self_check: protocols.self_check.enabled,
      harness_control: protocols.harness_control.enabled,
      effect_gate: protocols.effect_gate.enabled,
    },
    playbook: harness.config.playbook.enabled
      ? harness.playbook.map((rule) => ({
          id: rule.id,
          ...(rule.family ? { family: rule.family } : {}),
          patterns: rule.when.any,
          then: rule.then,
        }))
      : [],
    max_steps: harness.config.agent.max_steps,
    prose: {
      system: harness.system.replace(/\{\{[^}]*\}\}/g, " "),
      self_check: protocols.self_check.enabled
        ? (harness.prompts["self-check"] ?? DEFAULT_PROMPTS["self-check"])
        : "",
    },
    write_tools: [...writeTools].sort(),
    ...(deferral ? { deferral } : {}),
    phase,
    continued,
  };
}
