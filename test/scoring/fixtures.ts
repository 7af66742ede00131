import type { Blocker, Family, RetailTask, Task } from "../../src/domain/task";
import type { Trajectory, TrajectoryEvent } from "../../src/harness/trajectory";
import type { JudgeVerdict } from "../../src/scoring/judge";

export const LAMP_BLOCKER: Blocker = {
  id: "item-absent",
  label: "infeasible",
  description: "The desk lamp the customer wants to return is not in order #W2378156.",
  keywords: ["desk lamp", "W2378156", "not in the order", "absent", "return"],
  evidence: "state",
  decisive_step: 2,
};

export function blockedTask(overrides: Partial<RetailTask> = {}, blocker: Partial<Blocker> = {}): RetailTask {
  const full: Blocker = { ...LAMP_BLOCKER, ...blocker };
  return {
    id: "retail-b-1",
    suite: "retail",
    split: "search",
    kind: "blocked",
    family: full.label,
    source: "retail-f-1",
    instruction: "Return the desk lamp from order #W2378156.",
    env: {},
    reference: { actions: [], communicate: [] },
    verify: { kind: "retail_db" },
    blocker: full,
    forbidden: { tools: ["*"] },
    ...overrides,
  };
}

export function feasibleTask(overrides: Partial<RetailTask> = {}): RetailTask {
  return {
    id: "retail-f-1",
    suite: "retail",
    split: "search",
    kind: "feasible",
    instruction: "Return the water bottle from order #W2378156.",
    env: {},
    reference: { actions: [], communicate: [] },
    verify: { kind: "retail_db" },
    forbidden: {},
    ...overrides,
  };
}

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
