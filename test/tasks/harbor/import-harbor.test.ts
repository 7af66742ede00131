import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yargs from "yargs";
import { createModel } from "../../../src/api/create-model";
import { requirementsReport } from "../../../src/api/harbor";
import type { CliIO } from "../../../src/cli/io";
import { registerHarbor } from "../../../src/cli/tasks-harbor";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { Task, TerminalEnvSpec, TerminalReference } from "../../../src/domain/task";
import { createTaskEnvironment, verifyTask } from "../../../src/envs/suite-env";
import { evaluateJobs, planRollouts } from "../../../src/eval/evaluate";
import { loadHarness } from "../../../src/harness/load";
import { TASK_SETUP_FAILED } from "../../../src/harness/rollout";
import { rulesJudge, summarize } from "../../../src/scoring";
import type { DebianHost } from "../../../src/tasks/importers/harbor/host-packages";
import { importHarbor, unrunnableReason } from "../../../src/tasks/importers/harbor/import-harbor";
import { loadTaskDir } from "../../../src/tasks/loading/load";
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

/** A machine whose Debian archive ships `shipped` and has `installed` installed (no virtual packages, no tools). */
function fakeHost(shipped: string[] | null, installed: string[] = []): DebianHost {
  const has = (list: string[]) => async (names: readonly string[]) =>
    new Set(names.filter((name) => list.includes(name)));
  return {
    installed: has(installed),
    available: async (names) => (shipped ? has(shipped)(names) : null),
    facts: async (names) => ({
      installed: await has(installed)(names),
      shipped: shipped ? await has(shipped)(names) : null,
      providers: new Map(),
      commands: new Map(),
    }),
  };
}

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

const IMPORTED = [
  "harbor-app-prices",
  "harbor-build-steps",
  "harbor-docker-build",
  "harbor-failing-setup",
  "harbor-plain-sort",
  "harbor-pytest-check",
];

describe("hsearch tasks import-harbor", () => {
  let out: string;
  let result: CliResult;
  let tasks: Task[];
  const byId = (id: string) => tasks.find((task) => task.id === id) as Task;
  beforeAll(async () => {
    out = temp("hsearch-harbor-out-");
    result = await runCli(["tasks", "import-harbor", FIXTURES, "--out", out, "--split", "heldout"]);
    tasks = loadTaskDir(out).map((loaded) => loaded.task);
  });

  it("imports the others when one task is malformed and one needs network: exit 0 with counts by reason", () => {
    expect(result.code).toBe(0);
    expect(tasks.map((task) => task.id).sort()).toEqual(IMPORTED);
    expect(result.stdout).toContain(`imported 6, skipped 1 (network 1), failed 1 → ${join(out, "heldout")}`);
    expect(result.stdout).toMatch(
      /skipped \S*net-fetch: it needs network \(RUN curl … at environment\/Dockerfile:3\); --include-unrunnable imports it anyway/,
    );
    expect(result.stderr).toMatch(
      /failed \S*malformed-toml: \S*malformed-toml\/task\.toml:5: TOML: expected a value/,
    );
    expect(tasks.every((task) => task.split === "heldout" && task.kind === "feasible")).toBe(true);
  });

  it("exits 2 on a malformed task with --strict, and imports unrunnable tasks when asked", async () => {
    const strict = await runCli([
      "tasks",
      "import-harbor",
      FIXTURES,
      "--out",
      temp("hsearch-harbor-s-"),
      "--strict",
    ]);
    expect(strict.code).toBe(2);
    const all = temp("hsearch-harbor-all-");
    const included = await runCli([
      "tasks",
      "import-harbor",
      FIXTURES,
      "--out",
      all,
      "--include-unrunnable",
      "--json",
    ]);
    expect(JSON.parse(included.stdout)).toMatchObject({ imported: 7, skipped: 0, failed: 1 });
    expect(loadTaskDir(all).map((loaded) => loaded.task.id)).toContain("harbor-net-fetch");
    const missing = await runCli(["tasks", "import-harbor", join(FIXTURES, "nowhere")]);
    expect(missing.code).toBe(2);
  });

  it("carries a Dockerfile's files, ENV, local RUN steps and requirements, and task.toml's timeouts", () => {
    const env = byId("harbor-build-steps").env as TerminalEnvSpec;
    expect(Object.keys(env.files ?? {}).sort()).toEqual([
      "numbers.txt",
      "resources/greet.sh",
      "setup.sh",
      "tool.sh",
    ]);
    expect(env.env_vars).toEqual({
      GREETING: "hello from the image",
      PATH: "/app/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    });
    expect(env.setup).toBe("set -e\ncd /app && bash /app/setup.sh && rm -rf /app/resources /app/setup.sh\n");
    expect(env.timeouts).toEqual({ agent_sec: 120, command_sec: 120, verifier_sec: 90, setup_sec: 60 });
    expect(env.requires).toEqual({
      debian: ["jq", "python3", "python3-pytest"],
      python: ["pytest"],
      network: [],
      services: [],
      root: [],
    });
    const prices = byId("harbor-app-prices").env as TerminalEnvSpec;
    expect(Object.keys(prices.files ?? {}).sort()).toEqual(["config.json", "data/prices.csv"]);
  });

  it("scores each imported task's solution 1 and an agent that does nothing 0, through the task's own verifier", async () => {
    for (const task of tasks.filter((one) => one.id !== "harbor-failing-setup")) {
      expect(await rewardAfter(task, (task.reference as TerminalReference).solution), task.id).toBe(1);
      expect(await rewardAfter(task), task.id).toBe(0);
    }
  });

  it("evaluates the others when one task's setup fails: that task is an infrastructure error with its output", async () => {
    const outcomes = await evaluateJobs({
      harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon")),
      jobs: planRollouts(tasks, 1, 1),
      model: createModel("oracle"),
      judge: rulesJudge,
      concurrency: 2,
    });
    const summary = summarize(outcomes.map((outcome) => outcome.score));
    expect(summary.feasible?.n).toBe(5);
    expect(summary.feasible?.solve).toBe(1);
    expect(summary.infra_errors).toEqual({ task_setup: 1 });
    const failed = outcomes.find((outcome) => outcome.job.task.id === "harbor-failing-setup");
    expect(failed?.trajectory.reward).toBeNull();
    expect(failed?.trajectory.end.error).toMatch(
      new RegExp(
        `^${TASK_SETUP_FAILED}: the task's setup script failed \\(exit status 1\\): .*app-cache`,
        "s",
      ),
    );
  });

  it("takes a solution's installs as requirements and its fetches as network needs", async () => {
    const dir = temp("hsearch-harbor-solve-");
    cpSync(join(FIXTURES, "plain-sort"), join(dir, "plain-sort"), { recursive: true });
    writeFileSync(
      join(dir, "plain-sort", "solution", "solve.sh"),
      "#!/bin/bash\nset -e\napt-get update\napt-get install -y --no-install-recommends \\\n    build-essential\napt-get source pmars\nsort names.txt > sorted.txt\n",
    );
    const result = await importHarbor(dir, "search", { host: fakeHost(null) });
    expect(result.skipped.map((skip) => skip.reason)).toEqual([
      "it needs network (apt-get source at solution/solve.sh:6); --include-unrunnable imports it anyway",
    ]);
    const included = await importHarbor(dir, "search", { host: fakeHost(null), includeUnrunnable: true });
    const task = included.tasks[0] as Task;
    expect((task.env as TerminalEnvSpec).requires?.debian).toEqual(["build-essential"]);
    expect((task.reference as TerminalReference).solution).toBe(
      "#!/bin/bash\nset -e\napt-get source pmars\nsort names.txt > sorted.txt\n",
    );
  });

  it("runs the tests and the solution from the image's last WORKDIR, as Harbor does", async () => {
    const dir = temp("hsearch-harbor-workdir-");
    const task = join(dir, "site");
    cpSync(join(FIXTURES, "plain-sort"), task, { recursive: true });
    mkdirSync(join(task, "environment"), { recursive: true });
    writeFileSync(
      join(task, "environment", "Dockerfile"),
      "FROM ubuntu:24.04\nWORKDIR /app\nCOPY names.txt site/\nWORKDIR /app/site\n",
    );
    writeFileSync(join(task, "environment", "names.txt"), "mallory\nalice\ntrent\nbob\ncarol\n");
    writeFileSync(join(task, "solution", "solve.sh"), "#!/bin/bash\nsort names.txt > sorted.txt\n");
    writeFileSync(
      join(task, "tests", "test.sh"),
      '#!/bin/bash\n[ "$(head -1 sorted.txt)" = alice ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n',
    );
    const site = (await importHarbor(task, "search", { host: fakeHost(null) })).tasks[0] as Task;
    expect((site.reference as TerminalReference).solution).toBe(
      "#!/bin/bash\ncd /app/site\nsort names.txt > sorted.txt\n",
    );
    expect(await rewardAfter(site, (site.reference as TerminalReference).solution)).toBe(1);
    expect(await rewardAfter(site)).toBe(0);
  });

  it("places large files without passing them on a command line", async () => {
    const dir = temp("hsearch-harbor-large-");
    const task = join(dir, "large");
    cpSync(join(FIXTURES, "plain-sort"), task, { recursive: true });
    const blob = Buffer.alloc(400_000);
    for (let i = 0; i < blob.length; i++) blob[i] = (i * 7919) % 251;
    mkdirSync(join(task, "environment"), { recursive: true });
    writeFileSync(join(task, "environment", "blob.bin"), blob);
    writeFileSync(
      join(task, "solution", "names.txt"),
      `${"x".repeat(300_000)}\nalice\nbob\ncarol\nmallory\ntrent\n`,
    );
    writeFileSync(
      join(task, "solution", "solve.sh"),
      '#!/bin/bash\ntest "$(md5sum < /app/blob.bin)" = "$(md5sum < /app/blob.bin)" && [ $(stat -c %s /app/blob.bin) = 400000 ]\ntail -n 5 /solution/names.txt > /app/sorted.txt\n',
    );
    const imported = await importHarbor(task, "search", { host: fakeHost([], []) });
    const large = imported.tasks[0] as Task;
    expect(Object.keys((large.env as TerminalEnvSpec).binary_files ?? {})).toEqual(["blob.bin"]);
    expect(await rewardAfter(large, (large.reference as TerminalReference).solution)).toBe(1);
  });
});

describe("what Harbor tasks need from the machine", () => {
  it("skips tasks needing packages the archive does not ship, and lists those not installed", async () => {
    const result = await importHarbor(FIXTURES, "search", {
      host: fakeHost(["python3", "python3-pytest"], ["python3"]),
    });
    const outside = result.skipped
      .filter((skip) => skip.category === "outside_debian")
      .map((skip) => skip.reason);
    expect(outside).toHaveLength(2);
    expect(outside[0]).toMatch(/does not ship \(jq\)/);
    expect(result.missing.get("python3-pytest")).toEqual(["harbor-pytest-check"]);
    const needs = {
      debian: ["nginx"],
      python: [],
      network: [],
      services: [],
      root: ["RUN useradd … at x:3"],
    };
    expect(unrunnableReason(needs, new Set(["nginx"]))?.category).toBe("root");
    expect(unrunnableReason({ ...needs, root: [] }, new Set(["nginx"]))).toBeNull();
    // Without package lists the machine cannot tell: nothing is skipped for it.
    const unknown = await importHarbor(FIXTURES, "search", { host: fakeHost(null) });
    expect(unknown.skipped.map((skip) => skip.category)).toEqual(["network"]);
  });

  it("reports each task's needs and what this machine lacks", async () => {
    const report = await requirementsReport(
      FIXTURES,
      fakeHost(["jq", "python3", "python3-pytest"], ["python3"]),
    );
    const steps = report.tasks.find((task) => task.id === "harbor-build-steps");
    expect(steps?.requires?.debian).toEqual(["jq", "python3", "python3-pytest"]);
    expect(report.tasks.find((task) => task.id === "harbor-net-fetch")?.unrunnable).toMatch(/needs network/);
    expect(report.failed.map((failure) => failure.dir)).toEqual([join(FIXTURES, "malformed-toml")]);
    expect(report.missing).toEqual(["curl", "jq", "python3-pytest"]);
    expect(report.outsideDebian).toEqual(["curl"]);
    expect(report.installable).toEqual(["jq", "python3-pytest"]);
  });

  it("--install installs the missing packages as root, and says the command otherwise", async () => {
    const run = async (isRoot: boolean) => {
      let stdout = "";
      let stderr = "";
      let code = 0;
      const installed: string[][] = [];
      const io: CliIO = {
        out: (text) => {
          stdout += text;
        },
        err: (text) => {
          stderr += text;
        },
        errInline: () => {},
        isTTY: false,
        cwd: process.cwd(),
        env: process.env,
      };
      const host = fakeHost(["jq", "python3", "python3-pytest", "curl"], ["python3", "curl"]);
      await registerHarbor(
        yargs().exitProcess(false),
        io,
        (value) => {
          code = value;
        },
        {
          host,
          isRoot: () => isRoot,
          apt: {
            install: async (packages) => {
              installed.push([...packages]);
              return { exitCode: 0, errors: [], newlyInstalled: packages.length };
            },
            simulate: async () => ({ exitCode: 0, errors: [], newlyInstalled: 0 }),
            installed: async () => new Set(),
          },
        },
      ).parseAsync(["requirements", join(FIXTURES, "build-steps"), "--install"]);
      return { stdout, stderr, code, installed };
    };
    const root = await run(true);
    expect(root.installed).toEqual([["jq", "python3-pytest"]]);
    expect(root.stdout).toContain(
      "harbor-build-steps\n  debian: jq python3 python3-pytest\n  python: pytest",
    );
    const user = await run(false);
    expect(user.installed).toEqual([]);
    expect(user.code).toBe(1);
    expect(user.stderr).toContain(
      "apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends --no-remove jq python3-pytest",
    );
  });

  it("names in import's hint only packages that --install would install (not npm beside a Node.js from elsewhere)", async () => {
    const dir = temp("hsearch-harbor-hint-");
    cpSync(join(FIXTURES, "plain-sort"), join(dir, "plain-sort"), { recursive: true });
    writeFileSync(
      join(dir, "plain-sort", "solution", "solve.sh"),
      "#!/bin/bash\napt-get install -y npm jq\nsort names.txt > sorted.txt\n",
    );
    let stdout = "";
    const io: CliIO = {
      out: (text) => {
        stdout += text;
      },
      err: () => {},
      errInline: () => {},
      isTTY: false,
      cwd: process.cwd(),
      env: process.env,
    };
    const host = fakeHost(["npm", "jq"]);
    host.facts = async (names) => ({
      installed: new Set(),
      shipped: new Set(names),
      providers: new Map(),
      commands: new Map([["npm", "/usr/local/bin/npm"]]),
    });
    await registerHarbor(yargs().exitProcess(false), io, () => {}, { host }).parseAsync([
      "import-harbor",
      dir,
      "--out",
      temp("hsearch-harbor-hint-out-"),
    ]);
    expect(stdout).toContain("1 imported tasks need Debian packages this machine lacks (jq)");
  });
});
