import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../../src/core/errors";
import { taskSchema } from "../../../src/domain/task-schema";
import { retailDataFile } from "../../../src/envs/retail";
import { checkFeasible } from "../../../src/tasks/generators/retail/check-variants";
import { importTau2File } from "../../../src/tasks/importers/tau2/import-tau2";

const TAU2 = retailDataFile("tasks.json");
const raw = JSON.parse(readFileSync(TAU2, "utf8")) as Array<{
  id: string;
  evaluation_criteria: { actions: Array<{ name: string; arguments: unknown }>; communicate_info: string[] };
  user_scenario: { instructions: { reason_for_call: string; known_info: string } };
}>;

describe("importTau2File on the vendored τ² retail tasks", () => {
  const tasks = importTau2File(TAU2, "search");

  it("imports all 74 tasks as valid feasible retail tasks", () => {
    expect(tasks).toHaveLength(74);
    for (const task of tasks) {
      expect(taskSchema.safeParse(task).success, task.id).toBe(true);
      expect(task).toMatchObject({
        suite: "retail",
        split: "search",
        kind: "feasible",
        env: {},
        forbidden: {},
      });
      expect(task.verify).toEqual({ kind: "retail_db" });
    }
  });

  it("keeps the reference actions, communicate strings and scenario, and cues one action per step", () => {
    tasks.forEach((task, index) => {
      const source = raw[index];
      if (source === undefined) throw new Error("missing source");
      expect(task.id).toBe(`retail-tau2-${source.id}`);
      const reference = task.reference;
      expect(reference.actions).toEqual(
        source.evaluation_criteria.actions.map(({ name, arguments: a }) => ({ name, arguments: a })),
      );
      expect(reference.communicate).toEqual(source.evaluation_criteria.communicate_info);
      expect(task.sim?.steps).toEqual(reference.actions);
      expect(task.sim?.say).toEqual(reference.communicate);
      expect(task.user?.reason_for_call).toBe(source.user_scenario.instructions.reason_for_call);
      expect(task.user?.known_info).toBe(source.user_scenario.instructions.known_info);
    });
  });

  it("opens with the customer's own first-person message", () => {
    const first = tasks[0];
    expect(first?.instruction).toMatch(
      /^Hi, I'm Yusuf Rossi, zip code 19122\. I received my order #W2378156 and wish to exchange/,
    );
    for (const task of tasks) {
      expect(task.instruction).toMatch(/^Hi, /);
      expect(task.instruction).not.toMatch(/\b(you|your)\b.*\b(agent)\b|\bthe agent\b|\breveal\b/i);
    }
  });

  it("every imported reference scores reward 1 in the retail environment", () => {
    for (const task of tasks) expect(checkFeasible(task)).toBeNull();
  });
});

describe("importTau2File on bad input", () => {
  function failure(file: string) {
    try {
      importTau2File(file, "search");
    } catch (error) {
      if (isHsearchError(error, "bad_input")) return error;
      throw error;
    }
    throw new Error("expected an error");
  }
  const fixture = (name: string) =>
    new URL(`../../fixtures/tasks/tau2/${name}.json`, import.meta.url).pathname;

  it("names file, field and line", () => {
    expect(failure(fixture("missing-field")).location).toMatchObject({
      field: "1.user_scenario.instructions.reason_for_call",
      line: 19,
    });
    expect(failure(fixture("unknown-tool")).location).toMatchObject({
      field: "0.evaluation_criteria.actions.1.name",
      line: 17,
    });
    expect(failure(fixture("duplicate-id")).location).toMatchObject({ field: "1.id", line: 13 });
    expect(failure(fixture("malformed")).location).toMatchObject({ line: 18 });
    expect(failure(fixture("malformed")).location.file).toBe(fixture("malformed"));
  });
});
