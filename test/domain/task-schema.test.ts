import { describe, expect, it } from "vitest";
import { taskSchema } from "../../src/domain/task-schema";

const retail = {
  id: "r1",
  suite: "retail",
  split: "search",
  kind: "feasible",
  instruction: "Cancel order #W1.",
  env: {},
  reference: { actions: [], communicate: [] },
  verify: { kind: "retail_db" },
  forbidden: {},
};

const terminal = {
  id: "t1",
  suite: "terminal",
  split: "search",
  kind: "feasible",
  instruction: "Count the lines.",
  env: { files: { "a.txt": "x\n" } },
  reference: { solution: "wc -l a.txt > out" },
  verify: { kind: "terminal_test", script: "test -f out" },
  forbidden: {},
};

/** The paths of the issues of a refused task. */
function refused(input: unknown): string[] {
  const result = taskSchema.safeParse(input);
  if (result.success) throw new Error("the task was accepted");
  return result.error.issues.map((issue) => issue.path.join("."));
}

describe("the task schema, a union by suite", () => {
  it("parses each suite's task to its own shape", () => {
    const parsed = [taskSchema.parse(retail), taskSchema.parse(terminal)];
    const [first, second] = parsed;
    // The suite narrows env, reference and verify: no cast is needed to read a suite's own fields.
    if (first?.suite !== "retail" || second?.suite !== "terminal") throw new Error("suites lost");
    expect(first.reference.actions).toEqual([]);
    expect(second.reference.solution).toBe("wc -l a.txt > out");
    expect(second.env.files).toEqual({ "a.txt": "x\n" });
  });

  it("refuses a task whose environment, reference or verifier belongs to the other suite, naming the field", () => {
    expect(refused({ ...retail, verify: terminal.verify })).toEqual(["verify.kind", "verify"]);
    expect(refused({ ...retail, reference: terminal.reference })).toContain("reference");
    expect(refused({ ...terminal, env: { overlay: [] } })).toEqual(["env"]);
    expect(refused({ ...retail, suite: "desktop" })).toEqual(["suite"]);
  });

  it("still checks a terminal task's workspace paths", () => {
    expect(refused({ ...terminal, env: { files: { "../escape": "x" } } })).toEqual(["env.files.../escape"]);
  });
});
