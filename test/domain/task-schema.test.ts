import { describe, expect, it } from "vitest";
import { taskSchema } from "../../src/domain/task-schema";
import {
  retailBlocked,
  retailFeasible,
  terminalBlocked,
  terminalFeasible,
  unchecked,
} from "../helpers/task-builders";

const retail = retailFeasible({ id: "r1", instruction: "Cancel order #W1." });
const terminal = terminalFeasible({ id: "t1" });

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

  it("takes watched places only of a task image, as absolute paths without '.' or '..'", () => {
    const image = { dockerfile: "FROM debian:bookworm\n" };
    const imaged = { ...terminal, env: { sandbox: "docker", image, watch: ["/etc/nginx", "/"] } };
    expect(taskSchema.parse(imaged)).toEqual(imaged);
    expect(refused({ ...terminal, env: { watch: ["/etc"] } })).toEqual(["env.watch"]);
    expect(refused({ ...imaged, env: { ...imaged.env, watch: ["etc/nginx"] } })).toEqual(["env.watch.0"]);
    expect(refused({ ...imaged, env: { ...imaged.env, watch: ["/etc/../root"] } })).toEqual(["env.watch.0"]);
  });

  it("checks a blocked task's family against its blocker, in both suites", () => {
    for (const blocked of [retailBlocked(), terminalBlocked()]) {
      expect(taskSchema.parse(blocked)).toEqual(blocked);
      expect(refused(unchecked(blocked, { blocker: undefined }))).toEqual(["blocker"]);
      expect(refused(unchecked(blocked, { family: "trap" }))).toEqual(["blocker.label"]);
      expect(refused(unchecked(blocked, { split: "independent" }))).toEqual(["kind"]);
    }
  });
});
