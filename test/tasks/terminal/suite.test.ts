import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import { FAMILIES, type Task } from "../../../src/domain/task";
import { keywordOverlap } from "../../../src/scoring/rules-judge";
import { TERMINAL_DOMAINS } from "../../../src/tasks/generators/terminal/scenario";
import { TERMINAL_SCENARIOS } from "../../../src/tasks/generators/terminal/scenarios";
import { solutionScript } from "../../../src/tasks/generators/terminal/steps";
import { buildTerminalSuite, checkCues } from "../../../src/tasks/generators/terminal/suite";
import { loadTaskDir } from "../../../src/tasks/loading/load";
import { writeTaskFiles } from "../../../src/tasks/loading/write";
import { runCli } from "../../helpers/cli";

const SHIPPED = join(PACKAGE_ROOT, "tasks", "terminal");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function readTree(dir: string): Map<string, Buffer> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return new Map(
    files.map((entry) => [
      relative(dir, join(entry.parentPath, entry.name)),
      readFileSync(join(entry.parentPath, entry.name)),
    ]),
  );
}

const count = (tasks: readonly Task[], test: (task: Task) => boolean) => tasks.filter(test).length;

describe("the terminal suite", () => {
  let tasks: Task[];
  beforeAll(() => {
    tasks = buildTerminalSuite({ seed: 1 });
  });

  it("has 63/33 blocked tasks with as many counterparts, families balanced, and 12 independent tasks", () => {
    expect(tasks).toHaveLength(204);
    for (const [split, size] of [
      ["search", 63],
      ["heldout", 33],
    ] as const) {
      const blocked = tasks.filter((task) => task.split === split && task.kind === "blocked");
      expect(blocked).toHaveLength(size);
      for (const family of FAMILIES)
        expect(
          count(blocked, (task) => task.family === family),
          `${split} ${family}`,
        ).toBe(size / 3);
      expect(count(tasks, (task) => task.split === split && task.kind === "feasible")).toBe(size);
    }
    expect(count(tasks, (task) => task.split === "independent")).toBe(12);
    expect(count(tasks, (task) => task.kind === "feasible")).toBeGreaterThanOrEqual(40);
    expect(tasks.every((task) => task.suite === "terminal" && task.verify.kind === "terminal_test")).toBe(
      true,
    );
  });

  it("gives every scenario all three families and covers every domain of the brief", () => {
    for (const scenario of TERMINAL_SCENARIOS) {
      const families = new Set(
        tasks.filter((task) => task.id.startsWith(`terminal-${scenario.name}-`)).map((t) => t.family),
      );
      expect([...families].filter(Boolean).sort(), scenario.name).toEqual([...FAMILIES].sort());
    }
    expect(new Set(TERMINAL_SCENARIOS.map((scenario) => scenario.domain))).toEqual(new Set(TERMINAL_DOMAINS));
  });

  it("pairs each variant with its own feasible counterpart in the same split, from disjoint sources", () => {
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const blocked = tasks.filter((task) => task.kind === "blocked");
    expect(new Set(blocked.map((task) => task.source)).size).toBe(blocked.length);
    for (const variant of blocked) {
      const counterpart = byId.get(variant.source ?? "");
      expect(counterpart?.kind, variant.id).toBe("feasible");
      expect(counterpart?.split, variant.id).toBe(variant.split);
    }
    const sources = (split: string) => new Set(blocked.filter((t) => t.split === split).map((t) => t.source));
    const search = sources("search");
    expect([...sources("heldout")].filter((source) => search.has(source))).toEqual([]);
    const independent = tasks.filter((task) => task.split === "independent");
    expect(independent.every((task) => task.source === undefined && task.kind === "feasible")).toBe(true);
    const used = new Set(blocked.map((task) => task.source));
    expect(independent.filter((task) => used.has(task.id))).toEqual([]);
  });

  it("gives every blocked task protected blocker metadata, forbidden paths and sim cues that agree", () => {
    for (const task of tasks.filter((t) => t.kind === "blocked")) {
      const { blocker, sim } = task;
      expect(blocker?.label, task.id).toBe(task.family);
      expect(task.forbidden.paths?.length, task.id).toBeGreaterThan(0);
      const after = sim?.evidence_after ?? -1;
      expect(blocker?.decisive_step, task.id).toBe(after + 1);
      expect(blocker?.evidence === "spec", task.id).toBe(after === 0);
      expect(sim?.steps.every((step) => ["bash", "write_file", "read_file"].includes(step.name))).toBe(true);
      expect(
        keywordOverlap(sim?.right_reason ?? "", blocker?.keywords ?? [], task.id).grounded,
        task.id,
      ).toBe(true);
      expect(
        keywordOverlap(sim?.wrong_reason ?? "", blocker?.keywords ?? [], task.id).grounded,
        task.id,
      ).toBe(false);
      expect(checkCues(task), task.id).toBeNull();
    }
    const ambiguous = tasks.filter((t) => t.family === "ambiguous");
    expect(ambiguous.every((t) => t.blocker?.evidence === "spec")).toBe(true);
    expect(tasks.filter((t) => t.family === "trap").every((t) => t.blocker?.evidence === "execution")).toBe(
      true,
    );
  });

  it("derives each feasible task's reference solution from the skilled agent's state-changing steps", () => {
    for (const task of tasks.filter((t) => t.kind === "feasible")) {
      const acting = (task.sim?.steps ?? []).filter((step) => step.name !== "read_file");
      const solution = (task.reference as { solution: string }).solution;
      // The look steps are reads or harmless commands; the solution holds every write and the act commands.
      for (const step of acting.filter((s) => s.name === "write_file"))
        expect(solution, task.id).toContain(String(step.arguments.content));
      expect(solution.startsWith("#!/bin/bash\nset -euo pipefail\ncd /app\n"), task.id).toBe(true);
    }
  });

  it("refuses a reason that names a family (the deferral's label is read from its first family word)", () => {
    const task = tasks.find((t) => t.kind === "blocked") as Task;
    const named = {
      ...task,
      sim: { ...(task.sim as NonNullable<Task["sim"]>), right_reason: "this is a trap" },
    };
    expect(checkCues(named)).toMatch(/names a family/);
  });

  it("is what is committed under tasks/terminal, byte for byte, and regenerates identically", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-terminal-suite-"));
    temps.push(dir);
    writeTaskFiles(buildTerminalSuite({ seed: 1 }), dir, { replace: true });
    expect(readTree(dir)).toEqual(readTree(SHIPPED));
    const cli = mkdtempSync(join(tmpdir(), "hsearch-terminal-cli-"));
    temps.push(cli);
    const result = await runCli(["tasks", "generate", "--suite", "terminal", "--no-check", "--out", cli]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/wrote 204 terminal tasks .*search: 126, heldout: 66, independent: 12/);
    expect(readTree(cli)).toEqual(readTree(SHIPPED));
  }, 240_000);

  it("differs with another seed", () => {
    const other = buildTerminalSuite({ seed: 2 });
    expect(other.map((task) => task.id).sort()).toEqual(tasks.map((task) => task.id).sort());
    expect(other.map((task) => task.instruction + JSON.stringify(task.env))).not.toEqual(
      buildTerminalSuite({ seed: 1 }).map((task) => task.instruction + JSON.stringify(task.env)),
    );
  });

  it("validates as committed (hsearch tasks validate)", async () => {
    const loaded = loadTaskDir(SHIPPED);
    expect(loaded).toHaveLength(204);
    const result = await runCli(["tasks", "validate", SHIPPED]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("204 tasks ok\n");
  });

  it("writes reference solutions that run each bash step in its own shell in /app", () => {
    const script = solutionScript([
      { name: "bash", arguments: { command: "cd sub && touch a" } },
      { name: "read_file", arguments: { path: "x" } },
      { name: "write_file", arguments: { path: "d/f.txt", content: "hi\n" } },
    ]);
    expect(script).toBe(
      "#!/bin/bash\nset -euo pipefail\ncd /app\n(\ncd sub && touch a\n)\nmkdir -p -- \"$(dirname -- 'd/f.txt')\"\ncat > 'd/f.txt' <<'HSEARCH_EOF'\nhi\nHSEARCH_EOF\n",
    );
  });
});
