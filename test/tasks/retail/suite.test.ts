import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Task } from "../../../src/domain/task";
import { taskSchema } from "../../../src/domain/task-schema";
import {
  buildRetailSuite,
  RETAIL_BLOCKED_PLAN,
  type RetailSuite,
} from "../../../src/tasks/generators/retail/suite";
import { loadTaskDir } from "../../../src/tasks/loading/load";
import { checkTaskSet } from "../../../src/tasks/loading/validate";
import { writeTaskFiles } from "../../../src/tasks/loading/write";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function writeSuite(suite: RetailSuite): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-retail-suite-"));
  temps.push(dir);
  writeTaskFiles(suite.tasks, dir, { replace: true });
  return dir;
}

function readTree(dir: string): Map<string, Buffer> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return new Map(
    files.map((entry) => [
      relative(dir, join(entry.parentPath, entry.name)),
      readFileSync(join(entry.parentPath, entry.name)),
    ]),
  );
}

const count = (tasks: readonly Task[], predicate: (task: Task) => boolean) => tasks.filter(predicate).length;

describe("the retail suite", () => {
  let suite: RetailSuite;
  beforeAll(() => {
    suite = buildRetailSuite({ seed: 1 });
  });

  it("has the study's split sizes with families balanced within each split", () => {
    const { tasks } = suite;
    expect(tasks).toHaveLength(209);
    for (const split of ["search", "heldout"] as const) {
      const blocked = tasks.filter((task) => task.split === split && task.kind === "blocked");
      expect(blocked).toHaveLength(split === "search" ? 64 : 32);
      for (const family of ["infeasible", "ambiguous", "trap"] as const) {
        expect(
          count(blocked, (task) => task.family === family),
          `${split} ${family}`,
        ).toBe(RETAIL_BLOCKED_PLAN[split][family]);
      }
      expect(count(tasks, (task) => task.split === split && task.kind === "feasible")).toBe(blocked.length);
    }
    expect(RETAIL_BLOCKED_PLAN).toEqual({
      search: { infeasible: 22, ambiguous: 21, trap: 21 },
      heldout: { infeasible: 11, ambiguous: 11, trap: 10 },
    });
    expect(count(tasks, (task) => task.split === "independent")).toBe(17);
  });

  it("pairs each blocked variant with its own feasible counterpart in the same split", () => {
    const byId = new Map(suite.tasks.map((task) => [task.id, task]));
    const blocked = suite.tasks.filter((task) => task.kind === "blocked");
    const sources = blocked.map((task) => task.source);
    expect(new Set(sources).size).toBe(blocked.length);
    for (const variant of blocked) {
      const counterpart = byId.get(variant.source ?? "");
      expect(counterpart?.kind).toBe("feasible");
      expect(counterpart?.split).toBe(variant.split);
    }
    const counterparts = new Set(sources);
    const unpaired = suite.tasks.filter(
      (task) => task.kind === "feasible" && task.split !== "independent" && !counterparts.has(task.id),
    );
    expect(unpaired).toEqual([]);
  });

  it("builds search and held-out from disjoint sources, and keeps independent tasks apart", () => {
    const sourcesOf = (split: string) =>
      new Set(
        suite.tasks
          .filter((task) => task.split === split && task.kind === "blocked")
          .map((task) => task.source),
      );
    const search = sourcesOf("search");
    expect([...sourcesOf("heldout")].filter((source) => search.has(source))).toEqual([]);
    const independent = suite.tasks.filter((task) => task.split === "independent");
    for (const task of independent) {
      expect(task.kind).toBe("feasible");
      expect(task.source).toBeUndefined();
      expect(task.id).toMatch(/^retail-gen-/);
      expect(suite.tasks.some((other) => other.source === task.id)).toBe(false);
    }
  });

  it("uses every τ² task that makes a change, and only leaves out those that make none", () => {
    const tau2 = suite.tasks.filter((task) => /^retail-tau2-\d+$/.test(task.id));
    expect(tau2.length + suite.excluded.length).toBe(74);
    expect(suite.excluded).toEqual([
      "retail-tau2-10",
      "retail-tau2-24",
      "retail-tau2-25",
      "retail-tau2-50",
      "retail-tau2-57",
      "retail-tau2-67",
      "retail-tau2-105",
    ]);
  });

  it("every task validates against the schema and the set checks", () => {
    for (const task of suite.tasks) expect(taskSchema.safeParse(task).success, task.id).toBe(true);
    expect(() => checkTaskSet(suite.tasks.map((task) => ({ task, file: `${task.id}.json` })))).not.toThrow();
  });

  it("regenerates byte for byte with the same seed, and differently with another", () => {
    const first = readTree(writeSuite(suite));
    const second = readTree(writeSuite(buildRetailSuite({ seed: 1 })));
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [file, bytes] of first) expect(second.get(file)?.equals(bytes), file).toBe(true);
    const other = buildRetailSuite({ seed: 2 });
    expect(other.tasks.map((task) => task.id)).not.toEqual(suite.tasks.map((task) => task.id));
  });

  it("is what ships in tasks/retail", () => {
    const shipped = loadTaskDir(join(import.meta.dirname, "..", "..", "..", "tasks", "retail")).map(
      (entry) => entry.task,
    );
    const byId = (tasks: readonly Task[]) => [...tasks].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(byId(shipped)).toEqual(byId(suite.tasks));
  });
});
