/**
 * A plug-in suite outside a search (issue 24): `hsearch eval --suite ./my-suite.mjs`, the library's `evaluate` and
 * the probes run the example suite's tasks through the same engine; the directory records the module and its hash,
 * the evaluation page names the suite, and `eval --resume` imports the module again and refuses one that changed.
 * `run --plan` counts a plug-in suite's tasks as the run then spends them.
 */
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evaluate, openRun } from "../../src/api";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";

const work = mkdtempSync(join(tmpdir(), "hsearch-plugin-eval-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HARNESS = join(PACKAGE_ROOT, "harnesses", "bare");

/** A directory holding a copy of the example suite (so a test may change it). */
function project(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  copyFileSync(join(PACKAGE_ROOT, "examples", "my-suite.mjs"), join(dir, "my-suite.mjs"));
  return dir;
}

describe("hsearch eval on a plug-in suite", () => {
  it("evaluates the module's tasks of a split, records the module, and names its suite", async () => {
    const cwd = project("cli");
    const out = join(cwd, "ev");
    const args = ["eval", "--harness", HARNESS, "--suite", "./my-suite.mjs", "--split", "heldout"];
    const result = await runCli([...args, "--out", out, "--json"], { cwd });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    // The example's held-out split: 3 feasible tasks and a blocked variant of each.
    expect(report.summary.n_total).toBe(6);

    const run = openRun(out);
    try {
      const [harness] = run.candidates();
      const rollouts = run.rollouts(harness?.commit ?? "");
      expect(rollouts.length).toBe(6);
      expect(new Set(rollouts.map((r) => r.task_id.replace(/-.*$/, "")))).toEqual(new Set(["kv"]));
      expect(rollouts.every((r) => r.split === "heldout")).toBe(true);
    } finally {
      run.close();
    }
    const store = openRunStore(out);
    try {
      const config = store.getRun()?.config as { tasks: { selection: Record<string, unknown> } };
      expect(config.tasks.selection.suite_module).toEqual({
        path: join(cwd, "my-suite.mjs"),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(config.tasks.selection.suite).toBeUndefined();
    } finally {
      store.close();
    }

    const page = await runCli(["report", out], { cwd });
    expect(page.code, page.stderr).toBe(0);
    const html = readFileSync(join(out, "report.html"), "utf8");
    const suites = [...html.matchAll(/<td class="mono">[^<]*<\/td><td>([^<]*)<\/td><td>heldout<\/td>/g)];
    expect(suites.length).toBe(6);
    expect(new Set(suites.map((m) => m[1]))).toEqual(new Set(["kv"]));
  }, 120_000);

  it("the library's evaluate takes the module path as the suite", async () => {
    const cwd = project("api");
    const outcome = await evaluate(HARNESS, { suite: "./my-suite.mjs", split: "search" }, "sim:default", {
      cwd,
      out: join(cwd, "ev"),
    });
    expect(outcome.report.summary.n_total).toBe(12);
  }, 120_000);

  it("resume imports the module again, and refuses one that changed since, naming it", async () => {
    const cwd = project("resume");
    const out = join(cwd, "ev");
    const args = ["eval", "--harness", HARNESS, "--suite", "./my-suite.mjs", "--split", "heldout"];
    const first = await runCli([...args, "--out", out, "--json"], { cwd });
    expect(first.code, first.stderr).toBe(0);
    // As an interrupted evaluation is left: not finished, its episodes stored.
    const interrupt = () => {
      const store = openRunStore(out);
      store.setRunState("running");
      store.close();
    };
    interrupt();
    const resumed = await runCli(["eval", "--resume", out, "--json"], { cwd: work });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("6 of 6 episodes are stored and read back");
    expect(JSON.parse(resumed.stdout).summary).toEqual(JSON.parse(first.stdout).summary);

    interrupt();
    appendFileSync(join(cwd, "my-suite.mjs"), "\n// edited\n");
    const refused = await runCli(["eval", "--resume", out], { cwd: work });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--suite: module ${join(cwd, "my-suite.mjs")}: changed since`);
  }, 120_000);

  it("resume takes the module fixed after its code stopped the evaluation, once; it ends as an unbroken one", async () => {
    const args = (out: string) => [
      "eval",
      "--harness",
      HARNESS,
      "--suite",
      "./my-suite.mjs",
      "--split",
      "heldout",
      "--out",
      out,
      "--json",
    ];
    const unbroken = project("fix-unbroken");
    const expected = await runCli(args(join(unbroken, "ev")), { cwd: unbroken });
    expect(expected.code, expected.stderr).toBe(0);

    const cwd = project("fix");
    const out = join(cwd, "ev");
    const module = join(cwd, "my-suite.mjs");
    const original = readFileSync(module, "utf8");
    const healthy = "createEnvironment: (task, { readOnly }) => new KvEnvironment(task.env, readOnly),";
    expect(original).toContain(healthy);
    writeFileSync(
      module,
      original.replace(
        healthy,
        'createEnvironment: (task, { readOnly }) => { if (task.id === "kv-8") throw new Error("no store for kv-8"); return new KvEnvironment(task.env, readOnly); },',
      ),
    );
    const failed = await runCli(args(out), { cwd });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(`module ${module}: createEnvironment(kv-8) threw: no store for kv-8`);
    expect(failed.stderr).toContain(`continue with: hsearch eval --resume ${out}`);

    writeFileSync(module, original);
    const resumed = await runCli(["eval", "--resume", out, "--json"], { cwd: work });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`${module} changed since its code stopped the evaluation`);
    expect(JSON.parse(resumed.stdout).summary).toEqual(JSON.parse(expected.stdout).summary);

    // The fixed content is what a later resume holds the evaluation to: another change is refused.
    const store = openRunStore(out);
    store.setRunState("running");
    store.close();
    const again = await runCli(["eval", "--resume", out], { cwd: work });
    expect(again.code, again.stderr).toBe(0);
    const reopened = openRunStore(out);
    reopened.setRunState("running");
    reopened.close();
    appendFileSync(module, "\n// edited\n");
    const refused = await runCli(["eval", "--resume", out], { cwd: work });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--suite: module ${module}: changed since`);
  }, 180_000);

  it("the probes take a plug-in suite too", async () => {
    const cwd = project("probe");
    const beliefs = await runCli(
      [
        "probe",
        "beliefs",
        "--harness",
        HARNESS,
        "--suite",
        "./my-suite.mjs",
        "--split",
        "heldout",
        "--out",
        join(cwd, "b"),
        "--json",
      ],
      { cwd },
    );
    expect(beliefs.code, beliefs.stderr).toBe(0);
    expect(JSON.parse(beliefs.stdout)).toMatchObject({ n: 6, n_valid: 6, n_invalid: 0, n_infra_error: 0 });
  }, 120_000);

  it("run --plan counts a plug-in suite's tasks and names the proposer module; the run spends no more", async () => {
    const cwd = project("plan");
    copyFileSync(join(PACKAGE_ROOT, "examples", "my-proposer.mjs"), join(cwd, "my-proposer.mjs"));
    const config = join(cwd, "search.yaml");
    writeFileSync(
      config,
      [
        "name: kv-plan",
        "suites: [./my-suite.mjs]",
        "objective: joint",
        `seed_harness: ${HARNESS}`,
        "rounds: 2",
        "proposals_per_round: 2",
        "task_model: sim:default",
        "meta_model: ./my-proposer.mjs",
        "seed: 3",
      ].join("\n"),
    );
    const plan = await runCli(["run", "--plan", config, "--json"], { cwd });
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout);
    expect(planned).toMatchObject({
      repeats: 1,
      tasks: { search: 12, heldout: 6, independent: 2 },
      rollouts: { candidates: 5, search: { max: 60 } },
      offlineProposer: join(cwd, "my-proposer.mjs"),
    });
    const run = await runCli(["run", config, "--out", join(cwd, "run")], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const opened = openRun(join(cwd, "run"));
    try {
      const searched = opened.candidates().flatMap((c) => opened.rollouts(c.commit, "search"));
      expect(searched.length).toBeGreaterThan(0);
      expect(searched.length).toBeLessThanOrEqual(60);
    } finally {
      opened.close();
    }
  }, 120_000);

  it("tasks validate and tasks list take a suite module", async () => {
    const cwd = project("tasks");
    const valid = await runCli(["tasks", "validate", "./my-suite.mjs"], { cwd });
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toBe("20 tasks ok (suite kv, search: 12, heldout: 6, independent: 2)\n");
    const listed = await runCli(
      ["tasks", "list", "--suite", "./my-suite.mjs", "--split", "heldout", "--json"],
      {
        cwd,
      },
    );
    expect(listed.code, listed.stderr).toBe(0);
    const tasks = JSON.parse(listed.stdout) as { id: string; suite: string; split: string }[];
    expect(tasks).toHaveLength(6);
    expect(tasks.every((task) => task.suite === "kv" && task.split === "heldout")).toBe(true);

    writeFileSync(join(cwd, "empty.mjs"), "export const nothing = 1;\n");
    const refused = await runCli(["tasks", "validate", "./empty.mjs"], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`module ${join(cwd, "empty.mjs")}: has no default export`);
  }, 120_000);

  it("a suite that is neither built in nor a module path, or a module beside --tasks, is exit 2", async () => {
    const cwd = project("bad");
    const unknown = await runCli(["eval", "--harness", HARNESS, "--suite", "kv", "--split", "heldout"], {
      cwd,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "--suite kv: a suite is retail, terminal, or the path of a suite module (./my-suite.mjs)",
    );
    const missing = await runCli(
      ["eval", "--harness", HARNESS, "--suite", "./none.mjs", "--split", "heldout"],
      {
        cwd,
      },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--suite: module ${join(cwd, "none.mjs")}: no such file`);
    const both = await runCli(["eval", "--harness", HARNESS, "--suite", "./my-suite.mjs", "--tasks", cwd], {
      cwd,
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give a suite module or a task directory, not both");
  }, 120_000);
});
