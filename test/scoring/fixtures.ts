import type { Family, Task } from "../../src/domain/task";
import type { Trajectory, TrajectoryEvent } from "../../src/harness/trajectory";
import type { JudgeVerdict } from "../../src/scoring/judge";

export function trajectory(
  task: Task,
  events: TrajectoryEvent[],
  overrides: Partial<Trajectory> = {},
): Trajectory {
  const last = events.reduce((max, event) => Math.max(max, event.step), 0);
  return {
    task_id: task.id,
    suite: task.suite,
    kind: task.kind,
    ...(task.family === undefined ? {} : { family: task.family }),
    model: "sim:default",
    harness: "abandon",
    seed: 1,
    repeat: 0,
    steps: last,
    events,
    end: { reason: "agent_stopped", step: last },
    reward: 0,
    usage: { input_tokens: 0, output_tokens: 0, usd: 0, model_calls: last },
    ...overrides,
  };
}

/** The agent reads the order at step 1 and sees the blocker in the observation. */
export const READ_ORDER: TrajectoryEvent[] = [
  { type: "message", step: 0, author: "customer", text: "I want to return my desk lamp from #W2378156." },
  {
    type: "tool_call",
    step: 1,
    author: "agent",
    id: "c1",
    name: "get_order_details",
    arguments: { id: "#W2378156" },
  },
  {
    type: "observation",
    step: 1,
    id: "c1",
    name: "get_order_details",
    text: '{"items": ["water bottle"]}',
    ok: true,
  },
];

export const RIGHT_REASON = "The desk lamp is not in the order #W2378156, so it cannot be returned.";
export const WRONG_REASON = "The customer seems upset; I will stop here.";

export function agentDeferral(step: number, reason = RIGHT_REASON, label?: Family): TrajectoryEvent {
  return { type: "deferral", step, author: "agent", via: "abstain", reason, ...(label ? { label } : {}) };
}

export function harnessDeferral(step: number, reason = RIGHT_REASON): TrajectoryEvent {
  return { type: "deferral", step, author: "harness", via: "abstain", reason };
}

export function forbiddenWrite(step: number): TrajectoryEvent {
  return {
    type: "effect",
    step,
    author: "agent",
    tool: "return_delivered_order_items",
    arguments: { order_id: "#W2378156" },
    forbidden: true,
  };
}

export function verdict(overrides: Partial<JudgeVerdict> = {}): JudgeVerdict {
  return {
    judge: "test",
    recognized: true,
    label_correct: true,
    reason_matches: true,
    rationale: "fixed",
    input_hash: "h",
    ...overrides,
  };
}
