/**
 * `hsearch compare` on two small finished searches (SA-only against joint, the same tasks) and on two evaluation
 * directories: the paired tables, config differences, spending and harness diff in text and JSON; bad input (not
 * a run, disjoint tasks, no selection yet) is exit 2 with a message saying which. And the candidate names that
 * every command takes (`seed`, `selected`, `r1p1`, a prefix) through `diff`, `export` and `digest`.
 */
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunComparison } from "../../src/compare";
import { runCli } from "../helpers/cli";
import { type ComparedRuns, evaluate, makeComparedRuns, searchSplitOnly } from "../helpers/compared-runs";

let runs: ComparedRuns;
let evalA: string;
let evalB: string;

beforeAll(async () => {
  runs = await makeComparedRuns();
  evalA = join(runs.work, "eval-bare");
  evalB = join(runs.work, "eval-abandon");
  await evaluate(runs.work, "bare", runs.tasks, evalA);
  await evaluate(runs.work, "abandon", runs.tasks, evalB);
}, 600_000);

const json = async (...args: string[]): Promise<RunComparison> => {
  const result = await runCli(["compare", ...args, "--json"], { cwd: runs.work });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as RunComparison;
};

describe("hsearch compare of two searches", () => {
  it("pairs the two selections on the held-out and independent tasks, with config, spending and diff", async () => {
    const result = await runCli(["compare", runs.a, runs.b], { cwd: runs.work });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^A {2}.*sa-only · search sa-only · finished · selected /m);
    expect(out).toMatch(/^B {2}.*joint · search joint · finished · selected /m);
    expect(out).toMatch(/^rounds +1 +1$/m);
    expect(out).toMatch(/^held-out: \d+ episodes on \d+ tasks run by both/m);
    expect(out).toMatch(/^independent: 2 episodes on 2 tasks run by both/m);
    expect(out).toMatch(
      /^all +pass +\d+\/\d+ +\d+\/\d+ +[+-]\d\.\d{3} \[[+-]\d\.\d\d, [+-]\d\.\d\d\] +\d+ vs \d+ p = /m,
    );
    expect(out).toMatch(/^objective +"sa-only" +"joint"$/m);
    expect(out).toMatch(/^harness: the same files$|^harness diff \(A → B\):$/m);
  });

  it("says the same in JSON: pairs per split consistent with their tables", async () => {
    const c = await json(runs.a, runs.b);
    expect(c.splits.map((s) => s.purpose)).toEqual(["heldout", "independent"]);
    for (const split of c.splits) {
      const all = split.rows.find((r) => r.group === "all" && r.metric === "pass");
      expect(all).toBeDefined();
      const t = all?.table as NonNullable<typeof all>["table"];
      expect(t.both + t.firstOnly + t.secondOnly + t.neither).toBe(split.paired);
      expect(all?.mcnemar).toMatchObject({ b: t.firstOnly, c: t.secondOnly });
      expect(split.flips.length).toBe(t.firstOnly + t.secondOnly);
      expect(split.onlyA + split.onlyB).toBe(0);
    }
    expect(c.config).toEqual(
      expect.arrayContaining([
        { field: "objective", a: '"sa-only"', b: '"joint"' },
        { field: "name", a: '"small-sa-only"', b: '"small-joint"' },
      ]),
    );
    expect(c.a.spent.rounds).toBe(1);
    expect(c.a.spent.rollouts.heldout).toBeGreaterThan(0);
    expect(c.a.role).toBe("selected");
    // A run against itself: nothing differs, nothing flips.
    const same = await json(runs.a, runs.a);
    expect(same.config).toEqual([]);
    expect(same.sameHarness).toBe(true);
    expect(same.splits.every((s) => s.flips.length === 0)).toBe(true);
  });

  it("compares any named candidates: the seeds of both runs are the same harness", async () => {
    const c = await json(runs.a, runs.b, "--candidate-a", "seed", "--candidate-b", "seed");
    expect(c.sameHarness).toBe(true);
    expect(c.a.candidate).toBe("seed");
    expect(c.diff).toBe("");
  });
});

describe("hsearch compare of two evaluation directories", () => {
  it("pairs their episodes task by task on every split and diffs the two harnesses", async () => {
    const c = await json(evalA, evalB);
    expect(c.a.kind).toBe("eval");
    expect(c.splits.map((s) => s.purpose)).toEqual(["search", "heldout", "independent"]);
    expect(c.config.map((d) => d.field)).toContain("harness.hash");
    expect(c.sameHarness).toBe(false);
    expect(c.diff).toContain("diff --git a/harness.yaml b/harness.yaml");
    expect(c.diff).toContain("+  abandon: {enabled: true}");
    // A search's selection against an evaluation: paired on the held-out and independent tasks.
    const mixed = await json(runs.a, evalB);
    expect(mixed.splits.map((s) => s.purpose)).toEqual(["heldout", "independent"]);
  });
});

describe("hsearch compare of bad input", () => {
  it("refuses a directory that is not a run, naming it (exit 2)", async () => {
    const empty = join(runs.work, "not-a-run");
    mkdirSync(empty);
    const result = await runCli(["compare", runs.a, empty], { cwd: runs.work });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no run '${empty}'`);
  });

  it("refuses runs over disjoint tasks (exit 2)", async () => {
    const searchOnly = join(runs.work, "eval-search-only");
    await evaluate(runs.work, "bare", searchSplitOnly(runs.work, runs.tasks), searchOnly);
    const result = await runCli(["compare", runs.a, searchOnly], { cwd: runs.work });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /share no scored episode .*A r1p\d: heldout \d+ tasks, independent 2 tasks; B seed: search \d+ tasks/,
    );
  });

  it("refuses a run with no selection yet, and a flag that is no number (exit 2)", async () => {
    const running = join(runs.work, "running");
    cpSync(runs.b, running, { recursive: true });
    const db = new Database(join(running, "run.db"));
    db.prepare("UPDATE run SET state = 'running', ended_at = NULL").run();
    db.close();
    const result = await runCli(["compare", runs.a, running], { cwd: runs.work });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/has no selected harness yet \(it is running\)/);
    const flips = await runCli(["compare", runs.a, runs.b, "--flips", "many"], { cwd: runs.work });
    expect(flips.code).toBe(2);
    expect(flips.stderr).toContain("--flips must be a whole number");
  });
});

describe("candidate names in diff, export and digest", () => {
  it("diff --from seed --to selected compares the seed with the selection; an unknown name lists the valid ones", async () => {
    const ok = await runCli(["diff", runs.a, "--from", "seed", "--to", "selected"], { cwd: runs.work });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^# round 0 proposal 0 /m);
    const bad = await runCli(["diff", runs.a, "--from", "seed", "--to", "r7p1"], { cwd: runs.work });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--to");
    expect(bad.stderr).toMatch(/no candidate r7p1 .*valid names: seed, incumbent, selected, r1p1, r1p2/);
  });

  it("export and digest take the same names", async () => {
    const out = join(runs.work, "exported-r1p2");
    const exported = await runCli(["export", runs.a, "--candidate", "r1p2", "--out", out], {
      cwd: runs.work,
    });
    expect(exported.code, exported.stderr).toBe(0);
    const provenance = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
    expect(provenance.candidate).toMatchObject({ round: 1, proposal: 2 });
    const digest = await runCli(["digest", runs.a, "--candidate", "seed"], { cwd: runs.work });
    expect(digest.code, digest.stderr).toBe(0);
    const unknown = await runCli(["digest", runs.a, "--candidate", "best"], { cwd: runs.work });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("valid names: seed, incumbent, selected");
  });
});
