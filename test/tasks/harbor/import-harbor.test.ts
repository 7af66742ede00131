import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../../src/cli/create-model";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { Task, TerminalEnvSpec, TerminalReference } from "../../../src/domain/task";
import { createTaskEnvironment, verifyTask } from "../../../src/envs/suite-env";
import { evaluateJobs, planRollouts } from "../../../src/eval/evaluate";
import { loadHarness } from "../../../src/harness/load";
import { rulesJudge, summarize } from "../../../src/scoring";
import { sandboxToolCheck } from "../../../src/tasks/harbor/sandbox-tools";
import { loadTaskDir } from "../../../src/tasks/load";
import { type CliResult, runCli } from "../../helpers/cli";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor");
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The reward of `task` after `script` ran as the agent's one bash call (none: the agent did nothing). */
async function rewardAfter(task: Task, script?: string): Promise<number> {
  const env = await createTaskEnvironment(task);
  try {
    if (script !== undefined) {
      const result = await env.call("bash", { command: script }, { step: 1, author: "agent" });
      expect(result.ok, result.output).toBe(true);
    }
    return await verifyTask(task, env, { agentMessages: [], completed: true });
  } finally {
    await env.close();
  }
}

describe("hsearch tasks import-harbor", () => {
  let out: string;
  let result: CliResult;
  let tasks: Task[];
  let pytestMissing: string | null;
  beforeAll(async () => {
    pytestMissing = await sandboxToolCheck()({ python: true, pytest: true });
    out = temp("hsearch-harbor-out-");
    result = await runCli(["tasks", "import-harbor", FIXTURES, "--out", out, "--split", "heldout"]);
    tasks = loadTaskDir(out).map((loaded) => loaded.task);
  });

  it("imports the feasible task directories, skips the one that needs Docker with its reason", () => {
    const ids = tasks.map((task) => task.id).sort();
    const expected = [
      "harbor-app-prices",
      "harbor-plain-sort",
      ...(pytestMissing ? [] : ["harbor-pytest-check"]),
    ];
    expect(ids).toEqual(expected.sort());
    expect(result.stdout).toContain(`imported ${expected.length} tasks to ${join(out, "heldout")}`);
    expect(result.stdout).toMatch(
      /skipped \S*docker-build: the environment needs network and a Docker image build \(RUN apt-get … at environment\/Dockerfile:2\)/,
    );
    expect(
      tasks.every(
        (task) => task.split === "heldout" && task.kind === "feasible" && task.suite === "terminal",
      ),
    ).toBe(true);
  });

  it("uses the machine's pytest for Terminal-Bench tests, and says clearly when it is missing", () => {
    if (pytestMissing) {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /failed \S*pytest-check: the tests need pytest, and 'python3 -m pytest' does not run/,
      );
    } else {
      expect(result.code).toBe(0);
      const task = tasks.find((t) => t.id === "harbor-pytest-check") as Task;
      expect(task.verify.kind === "terminal_test" && task.verify.script).toContain(
        "python3 -m pytest /tmp/hsearch-tests/test_outputs.py",
      );
    }
  });

  it("places the files a Dockerfile copies to /app, and only those", () => {
    const prices = tasks.find((task) => task.id === "harbor-app-prices") as Task;
    expect(Object.keys((prices.env as TerminalEnvSpec).files ?? {}).sort()).toEqual([
      "config.json",
      "data/prices.csv",
    ]);
    expect((prices.env as TerminalEnvSpec).harbor_dir).toBe("app-prices");
    const plain = tasks.find((task) => task.id === "harbor-plain-sort") as Task;
    expect((plain.env as TerminalEnvSpec).files).toEqual({
      "names.txt": "mallory\nalice\ntrent\nbob\ncarol\n",
    });
    expect(plain.instruction).toBe(
      "Sort the names in `names.txt` alphabetically, one per line, and write them to `sorted.txt`.",
    );
  });

  it("scores an imported task's solution 1 and an agent that does nothing 0, through the task's own verifier", async () => {
    for (const task of tasks) {
      expect(await rewardAfter(task, (task.reference as TerminalReference).solution), task.id).toBe(1);
      expect(await rewardAfter(task), task.id).toBe(0);
    }
  });

  it("gives the oracle the solution as its one step, so it solves them through the agent loop", async () => {
    const outcomes = await evaluateJobs({
      harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon")),
      jobs: planRollouts(tasks, 1, 1),
      model: createModel("oracle"),
      judge: rulesJudge,
      concurrency: 2,
    });
    expect(summarize(outcomes.map((outcome) => outcome.score)).feasible?.solve).toBe(1);
  });

  it("writes tasks that validate", async () => {
    const validated = await runCli(["tasks", "validate", out]);
    expect(validated.code).toBe(0);
    expect(validated.stdout).toBe(`${tasks.length} tasks ok\n`);
  });

  it("imports a single task directory", async () => {
    const single = temp("hsearch-harbor-one-");
    const one = await runCli(["tasks", "import-harbor", join(FIXTURES, "plain-sort"), "--out", single]);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(`imported 1 tasks to ${join(single, "search")}\n`);
    expect(loadTaskDir(single).map((loaded) => loaded.task.id)).toEqual(["harbor-plain-sort"]);
  });

  it("fails a malformed task with exit 2, naming the file and line", async () => {
    const dir = temp("hsearch-harbor-bad-");
    cpSync(join(FIXTURES, "plain-sort"), join(dir, "plain-sort"), { recursive: true });
    writeFileSync(join(dir, "plain-sort", "task.toml"), 'version = "1.0"\n\n[verifier]\ntimeout_sec = = 3\n');
    const bad = await runCli([
      "tasks",
      "import-harbor",
      join(dir, "plain-sort"),
      "--out",
      temp("hsearch-harbor-x-"),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/failed \S*plain-sort: \S*task\.toml:4: TOML: expected a value/);
    const missing = await runCli(["tasks", "import-harbor", join(dir, "nowhere")]);
    expect(missing.code).toBe(2);
  });
});
