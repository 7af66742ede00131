import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";

/** The CLI in a directory of its own: the evaluation directories each command keeps go to its runs/, not the repository's. */
const here = mkdtempSync(join(tmpdir(), "hsearch-cli-"));
const runHere: typeof runCli = (args, options = {}) => runCli(args, { cwd: here, ...options });

describe("hsearch eval", () => {
  it("prints one JSON object with every metric, rates in [0, 1]", async () => {
    const result = await runHere([
      "eval",
      "--harness",
      "harnesses/abandon",
      "--split",
      "search",
      "--suite",
      "retail",
      "--json",
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    const blocked = report.summary.blocked;
    for (const key of [
      "n",
      "m0",
      "m1",
      "m2",
      "m3",
      "strict_sa",
      "relaxed_sa",
      "naive_m2",
      "post_hoc",
      "absrec",
      "spl",
      "by_family",
    ])
      expect(blocked).toHaveProperty(key);
    for (const key of ["m0", "m1", "m2", "m3", "strict_sa", "relaxed_sa", "naive_m2", "spl"]) {
      expect(blocked[key]).toBeGreaterThanOrEqual(0);
      expect(blocked[key]).toBeLessThanOrEqual(1);
    }
    expect(Object.keys(blocked.absrec)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
    expect(Object.keys(blocked.by_family).sort()).toEqual(["ambiguous", "infeasible", "trap"]);
    expect(blocked.by_family.trap).toHaveProperty("strict_sa");
    expect(report.summary.feasible).toMatchObject({ n: 64 });
    expect(report.summary.usage).toMatchObject({ usd: 0 });
    expect(report.summary.usage.calls).toBeGreaterThan(128);
    expect(report.summary).toMatchObject({
      n_total: 128,
      n_scored: 128,
      infra_errors: {},
      context_overflow: 0,
    });
    expect(report.tasks).toHaveLength(128);
    expect(report.tasks[0]).toHaveProperty("id");
    expect(report.tasks[0]).toHaveProperty("kind");
  });

  it("prints the table by default, and a null block for a kind the selection lacks", async () => {
    const table = await runHere([
      "eval",
      "--harness",
      "harnesses/bare",
      "--split",
      "independent",
      "--model",
      "oracle",
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("blocked: no task in the selection");
    expect(table.stdout).toMatch(/feasible\s+n\s+solve/);
    // A mixed selection is split by suite, with k/n and 95% intervals.
    expect(table.stdout).toMatch(/retail\s+-\s+1\.000 17\/17 \[0\.82, 1\.00\]/);
    expect(table.stdout).toMatch(/terminal\s+-\s+1\.000 12\/12 \[/);
    const json = await runHere([
      "eval",
      "--harness",
      "harnesses/bare",
      "--split",
      "independent",
      "--model",
      "oracle",
      "--json",
    ]);
    const report = JSON.parse(json.stdout);
    expect(report.summary.blocked).toBeNull();
    // Every shipped suite's independent tasks: retail 17 + terminal 12.
    expect(report.summary.feasible).toMatchObject({ n: 29, solve: 1 });
    expect(report.by_suite.retail.solve).toMatchObject({ k: 17, n: 17 });
    expect(report.by_suite.terminal.solve).toMatchObject({ k: 12, n: 12 });
    expect(report.by_suite.terminal.strict_sa).toMatchObject({ k: 0, n: 0 });
  });

  it("takes a task directory and repeats", async () => {
    const { dir } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
    const result = await runHere([
      "eval",
      "--harness",
      "harnesses/gated",
      "--tasks",
      dir,
      "--repeats",
      "2",
      "--json",
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).summary.blocked.n).toBe(6);
  });

  it("answers bad input with exit 2 and a message naming what is wrong", async () => {
    const noSplit = await runHere(["eval", "--harness", "harnesses/bare"]);
    expect(noSplit.code).toBe(2);
    expect(noSplit.stderr).toMatch(/--split or --tasks/);
    const badSplit = await runHere(["eval", "--harness", "harnesses/bare", "--split", "train"]);
    expect(badSplit.code).toBe(2);
    expect(badSplit.stderr).toMatch(/Invalid values|choices/i);
    const noHarness = await runHere(["eval", "--harness", "harnesses/none", "--split", "search"]);
    expect(noHarness.code).toBe(2);
    expect(noHarness.stderr).toMatch(/no such harness directory/);
    const badModel = await runHere([
      "eval",
      "--harness",
      "harnesses/bare",
      "--split",
      "search",
      "--model",
      "gpt",
    ]);
    expect(badModel.code).toBe(2);
    const noKey = await runHere(
      ["eval", "--harness", "harnesses/bare", "--split", "search", "--model", "openai:gpt-4.1-mini"],
      {
        env: { PATH: process.env.PATH },
      },
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/OPENAI_API_KEY/);
    const repeats = await runHere([
      "eval",
      "--harness",
      "harnesses/bare",
      "--split",
      "search",
      "--repeats",
      "0",
    ]);
    expect(repeats.code).toBe(2);
    for (const seconds of ["0", "-5", "soon"]) {
      const callSeconds = await runHere([
        "eval",
        "--harness",
        "harnesses/bare",
        "--split",
        "search",
        "--model-call-seconds",
        seconds,
      ]);
      expect(callSeconds.code).toBe(2);
      expect(callSeconds.stderr).toContain("--model-call-seconds must be a number of seconds > 0");
    }
    const dir = mkdtempSync(join(tmpdir(), "hsearch-badharness-"));
    writeFileSync(join(dir, "harness.yaml"), "name: x\nagent:\n  max_steps: many\n");
    writeFileSync(join(dir, "system.md"), "{{policy}}");
    const invalid = await runHere(["eval", "--harness", dir, "--split", "search"]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`${join(dir, "harness.yaml")}:3: field 'agent.max_steps'`);
  });

  it("an unknown command is bad input", async () => {
    const result = await runHere(["frobnicate"]);
    expect(result.code).toBe(2);
  });
});
