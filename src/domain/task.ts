/**
 * The task format (docs/DESIGN.md §3). `Task` is the full record on disk, inferred from the zod schema
 * (task-schema.ts, where the fields are documented) as a union by suite: `task.suite === "retail"` narrows its `env`,
 * `reference` and `verify`. `AgentTask` is the narrow view handed to the agent loop, prompts and proposers: it has no
 * protected field (`blocker`, `reference`, `verify`), so code that only holds an `AgentTask` cannot leak one.
 */
import type { blockerSchema, TaskRecord } from "./task-schema";

export * from "./suites";

export type Task = TaskRecord;
export type RetailTask = Extract<Task, { suite: "retail" }>;
export type TerminalTask = Extract<Task, { suite: "terminal" }>;

/** A tool call as data: used for reference actions, sim cues and replay. */
export type ToolCallSpec = RetailReference["actions"][number];
export type Blocker = import("zod").infer<typeof blockerSchema>;
/** Where the decisive evidence of a blocker first becomes visible. */
export type EvidenceKind = Blocker["evidence"];
export type CustomerScenario = NonNullable<Task["user"]>;
export type RetailEnvSpec = RetailTask["env"];
export type TerminalEnvSpec = TerminalTask["env"];
export type TerminalTimeouts = NonNullable<TerminalEnvSpec["timeouts"]>;
export type HostRequirements = NonNullable<TerminalEnvSpec["requires"]>;
export type RetailReference = RetailTask["reference"];
export type TerminalReference = TerminalTask["reference"];
export type Verify = Task["verify"];
export type Forbidden = Task["forbidden"];
export type SimCues = NonNullable<Task["sim"]>;

export const PROTECTED_FIELDS = ["blocker", "reference", "verify"] as const;

/** What the agent, the prompts and the proposers may see of a task. */
export type AgentTask = Omit<Task, (typeof PROTECTED_FIELDS)[number]>;

/** Drop the protected fields. A copy, so later edits to the task cannot leak through. */
export function toAgentTask(task: Task): AgentTask {
  const { blocker: _b, reference: _r, verify: _v, ...rest } = task;
  return structuredClone(rest);
}
