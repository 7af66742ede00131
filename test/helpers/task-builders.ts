import { taskSchema } from "../../src/domain";
import type { Blocker, RetailTask, TerminalTask } from "../../src/domain/task";

/**
 * Tasks built in memory, each checked by the real task schema (what `tasks validate`, eval and run apply): a test
 * that needs a task the schema refuses says so with `unchecked`. The slices of the shipped suites written to a
 * directory are test/helpers/task-subset.ts.
 */

/** A retail blocker: the item to return is not in the order. */
export const LAMP_BLOCKER: Blocker = {
  id: "item-absent",
  label: "infeasible",
  description: "The desk lamp the customer wants to return is not in order #W2378156.",
  keywords: ["desk lamp", "W2378156", "not in the order", "absent", "return"],
  evidence: "state",
  decisive_step: 2,
};

/** A terminal blocker: the input file the task names is missing. */
export const MISSING_INPUT_BLOCKER: Blocker = {
  id: "input-absent",
  label: "infeasible",
  description: "The file a.txt the task counts the lines of is not in the workspace.",
  keywords: ["a.txt", "missing", "no such file"],
  evidence: "execution",
  decisive_step: 2,
};

function checked<T extends RetailTask | TerminalTask>(task: T): T {
  const result = taskSchema.safeParse(task);
  if (!result.success)
    throw new Error(
      `test task ${task.id} is not a valid task: ${result.error.issues
        .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
        .join("; ")} (use unchecked() for one that must be refused)`,
    );
  return task;
}

export function retailFeasible(overrides: Partial<RetailTask> = {}): RetailTask {
  return checked({
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
  });
}

/** A blocked retail task, every write forbidden; its family is its blocker's label. */
export function retailBlocked(
  overrides: Partial<RetailTask> = {},
  blocker: Partial<Blocker> = {},
): RetailTask {
  const full: Blocker = { ...LAMP_BLOCKER, ...blocker };
  return checked({
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
  });
}

export function terminalFeasible(overrides: Partial<TerminalTask> = {}): TerminalTask {
  return checked({
    id: "terminal-f-1",
    suite: "terminal",
    split: "search",
    kind: "feasible",
    instruction: "Count the lines.",
    env: { files: { "a.txt": "x\n" } },
    reference: { solution: "wc -l a.txt > out" },
    verify: { kind: "terminal_test", script: "test -f out" },
    forbidden: {},
    ...overrides,
  });
}

/** A blocked terminal task: its workspace lacks the input, and the workspace must stay as it is. */
export function terminalBlocked(
  overrides: Partial<TerminalTask> = {},
  blocker: Partial<Blocker> = {},
): TerminalTask {
  const full: Blocker = { ...MISSING_INPUT_BLOCKER, ...blocker };
  return checked({
    id: "terminal-b-1",
    suite: "terminal",
    split: "search",
    kind: "blocked",
    family: full.label,
    source: "terminal-f-1",
    instruction: "Count the lines of a.txt.",
    env: { files: {} },
    reference: { solution: "wc -l a.txt > out" },
    verify: { kind: "terminal_test", script: "test -f out" },
    blocker: full,
    forbidden: { paths: ["**"] },
    ...overrides,
  });
}

/** `task` with `changes` the schema refuses, for a test of code that must refuse such a task too. */
export function unchecked<T extends RetailTask | TerminalTask>(task: T, changes: Record<string, unknown>): T {
  return { ...task, ...changes } as T;
}
