import type { Family, Kind, SimCues } from "../domain/task";

/**
 * What the simulator reads besides the messages (DESIGN §5): the structured harness (protocols and playbook rules,
 * not prose) and the task's sim cues. Built by the agent loop; never sent to a real provider.
 */
export interface SimContext {
  suite: "retail" | "terminal";
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
  /** The suite's tools that change state. */
  write_tools: string[];
  /** "main" for the episode; "self_check", "report", "challenge", "belief" for the protocol turns. */
  phase: "main" | "self_check" | "report" | "challenge" | "belief";
}
