import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import { searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";
import { tempDir } from "../store/fixtures";

const TERMINAL_TASK = join(PACKAGE_ROOT, "tasks/terminal/independent/terminal-log-errors-09.json");

describe("one validation for every command", () => {
  it("a workspace file with '../' is refused alike by tasks validate, eval and run, and run makes no run directory", async () => {
    const work = tempDir();
    const tasks = join(work, "tasks");
    mkdirSync(tasks);
    const task = JSON.parse(readFileSync(TERMINAL_TASK, "utf8"));
    task.env.files = { ...task.env.files, "../escape.txt": "outside\n" };
    writeFileSync(join(tasks, "escape.json"), JSON.stringify(task, null, 2));
    const validate = await runCli(["tasks", "validate", tasks], { cwd: work });
    const evaluate = await runCli(
      ["eval", "--harness", "harnesses/bare", "--tasks", tasks, "--model", "sim:oracle"],
      {
        cwd: work,
      },
    );
    writeSearchConfig(
      join(work, "search.yaml"),
      searchConfig({ name: "escape", suites: ["terminal"], tasks: "tasks" }),
    );
    const run = await runCli(["run", "search.yaml", "--out", "runs/escape"], { cwd: work });
    for (const result of [validate, evaluate, run]) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain("workspace path '../escape.txt' refused");
    }
    expect(evaluate.stderr).toBe(validate.stderr);
    expect(run.stderr).toBe(validate.stderr);
    expect(existsSync(join(work, "escape.txt"))).toBe(false);
    expect(existsSync(join(work, "runs"))).toBe(false);
  });

  it("run and eval refuse a task directory that tasks validate rejects, and run leaves no run directory", async () => {
    const work = tempDir();
    const tasks = join(PACKAGE_ROOT, "test", "fixtures", "tasks", "missing-source");
    const validate = await runCli(["tasks", "validate", tasks], { cwd: work });
    expect(validate.code).toBe(2);
    const message = validate.stderr.trim();
    writeSearchConfig(join(work, "search.yaml"), searchConfig({ name: "refused", tasks }));
    const run = await runCli(["run", "search.yaml", "--out", "runs/refused"], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(message);
    expect(existsSync(join(work, "runs"))).toBe(false);
    const evaluate = await runCli(["eval", "--harness", "harnesses/bare", "--tasks", tasks], { cwd: work });
    expect(evaluate.code).toBe(2);
    expect(evaluate.stderr.trim()).toBe(message);
  });

  it("a seed harness that does not load is refused before the run directory is made", async () => {
    const work = tempDir();
    cpSync(join(PACKAGE_ROOT, "harnesses", "bare"), join(work, "seed"), { recursive: true });
    writeFileSync(join(work, "seed", "harness.yaml"), "name: [unclosed\n");
    writeSearchConfig(join(work, "search.yaml"), searchConfig({ name: "refused", seed_harness: "seed" }));
    const run = await runCli(["run", "search.yaml", "--out", "runs/refused"], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("harness.yaml");
    expect(existsSync(join(work, "runs"))).toBe(false);
  });

  it("a bad HSEARCH_IMAGE_SOURCE is refused before the run directory is made", async () => {
    const work = tempDir();
    writeSearchConfig(join(work, "search.yaml"), searchConfig({ name: "refused" }));
    const env = { ...process.env, HSEARCH_IMAGE_SOURCE: "registry" };
    const run = await runCli(["run", "search.yaml", "--out", "runs/refused"], { cwd: work, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "HSEARCH_IMAGE_SOURCE must be one of auto, prebuilt, dockerfile, got 'registry'",
    );
    expect(existsSync(join(work, "runs"))).toBe(false);
  });

  it("a run made with relative paths stores them resolved and resumes from another directory", async () => {
    const work = tempDir();
    const project = join(work, "project");
    mkdirSync(project);
    cpSync(join(PACKAGE_ROOT, "harnesses", "bare"), join(project, "seed"), { recursive: true });
    cpSync(retailSubset({ perFamily: 1 }).dir, join(project, "tasks"), { recursive: true });
    writeSearchConfig(
      join(project, "search.yaml"),
      searchConfig({ name: "portable", tasks: "tasks", seed_harness: "seed", seed: 4 }),
    );
    const runDir = join(project, "runs", "portable");
    const first = await runCli(["run", "search.yaml", "--out", "runs/portable"], { cwd: project });
    expect(first.code, first.stderr).toBe(0);
    const store = openRunStore(runDir, { readonly: true });
    const config = store.getRun()?.config as { seed_harness: string; tasks: string };
    store.close();
    expect(config.seed_harness).toBe(join(project, "seed"));
    expect(config.tasks).toBe(join(project, "tasks"));
    const elsewhere = join(work, "elsewhere");
    mkdirSync(elsewhere);
    const resumed = await runCli(["run", "--resume", runDir], { cwd: elsewhere });
    expect(resumed.code, resumed.stderr).toBe(0);
  }, 240_000);
});
