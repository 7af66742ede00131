import type { SimContext } from "../../src/harness/sim-context";

/** A simulator context, to show it never changes a cache key and never reaches a real provider. */
export function simContext(taskId: string): SimContext {
  return {
    suite: "retail",
    task_id: taskId,
    kind: "blocked",
    cues: {
      steps: [],
      evidence_after: 1,
      evidence_text: "PROTECTED-CUE-TEXT",
      right_reason: "the order is absent",
    },
    protocols: {
      abandon: true,
      report: false,
      self_check: false,
      harness_control: false,
      effect_gate: false,
    },
    playbook: [],
    max_steps: 10,
    prose: { system: "You are a careful agent.", self_check: "" },
    write_tools: ["exchange_delivered_order_items"],
    phase: "main",
    continued: false,
  };
}
