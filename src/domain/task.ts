/**
 * The task format (docs/DESIGN.md §3). `Task` is the full record on disk, inferred from the zod schema
 * (task-schema.ts, where the fields are documented) as a union by suite: `task.suite === "retail"` narrows its `env`,
 * `reference` and `verify`. `AgentTask` is the narrow view handed to the agent loop, prompts and proposers: it has no
 * protected field (`blocker`, `reference`, `verify`), so code that only holds an `AgentTask` cannot leak one.
 */
import type { Suite } from "./suites";
import type { blockerSchema, PluginTaskRecord, TaskRecord } from "./task-schema";

export * from "./suites";

declare const pluginSuite: unique symbol;
/**
 * The name of a plug-in suite (src/plugins), never `retail` or `terminal`. Branded so that only the plug-in loader,
 * which checked it, makes one; a task of such a suite is a `PluginTask`.
 */
export type PluginSuiteName = string & { readonly [pluginSuite]: true };
/** Any suite a task can be of: a built-in one, or a plug-in's. */
export type SuiteName = Suite | PluginSuiteName;

/** A plug-in suite's task: the common fields, with its environment, reference and verifier as the suite's own data. */
export type PluginTask = Omit<PluginTaskRecord, "suite"> & { suite: PluginSuiteName };

/**
 * A task of any suite. A plug-in's suite name is not a literal type, so `task.suite === "retail"` does not narrow:
 * code that reads a built-in suite's fields asks `isRetailTask` / `isTerminalTask`.
 */
export type Task = TaskRecord | PluginTask;
export type RetailTask = Extract<TaskRecord, { suite: "retail" }>;
export type TerminalTask = Extract<TaskRecord, { suite: "terminal" }>;

export function isRetailTask(task: Task): task is RetailTask {
  return task.suite === "retail";
}

export function isTerminalTask(task: Task): task is TerminalTask {
  return task.suite === "terminal";
}

export function isPluginTask(task: Task): task is PluginTask {
  return !isBuiltinSuite(task.suite);
}

/** Whether a suite name is one of the built-in suites (the rest are plug-ins'). */
export function isBuiltinSuite(name: string): name is Suite {
  return name === "retail" || name === "terminal";
}

/** A tool call as data: used for reference actions, sim cues and replay. */
export type ToolCallSpec = RetailReference["actions"][number];
export type Blocker = import("zod").infer<typeof blockerSchema>;
/** Where the decisive evidence of a blocker first becomes visible. */
export type EvidenceKind = Blocker["evidence"];
export type CustomerScenario = NonNullable<TaskRecord["user"]>;
export type RetailEnvSpec = RetailTask["env"];
export type TerminalEnvSpec = TerminalTask["env"];
export type TerminalTimeouts = NonNullable<TerminalEnvSpec["timeouts"]>;
export type HostRequirements = NonNullable<TerminalEnvSpec["requires"]>;
export type RetailReference = RetailTask["reference"];
export type TerminalReference = TerminalTask["reference"];
export type Verify = TaskRecord["verify"];
export type Forbidden = Task["forbidden"];
export type SimCues = NonNullable<TaskRecord["sim"]>;

export const PROTECTED_FIELDS = ["blocker", "reference", "verify"] as const;

/** What the agent, the prompts and the proposers may see of a task. */
export type AgentTask = Omit<Task, (typeof PROTECTED_FIELDS)[number]>;

/** Drop the protected fields. A copy, so later edits to the task cannot leak through. */
export function toAgentTask(task: Task): AgentTask {
  const { blocker: _b, reference: _r, verify: _v, ...rest } = task;
  return structuredClone(rest);
}
