/**
 * Harbor tasks on the Docker path (`tasks import-harbor --sandbox docker`): what the importer carries (the
 * Dockerfile and build context, resources, run-time packages), which tasks it lets through that the namespace path
 * skips, and — where a docker daemon answers — the fixture test/fixtures/harbor-docker/words-home built from its own
 * Dockerfile and run end to end: its solution passes its own verifier, an agent that does nothing fails, and the
 * episode sees the image as Harbor's would (WORKDIR /home/user, /data, root, no network, its memory limit).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { Task, TerminalEnvSpec, TerminalReference } from "../../../src/domain/task";
import { taskSchema } from "../../../src/domain/task-schema";
import { createTaskEnvironment, verifyTask } from "../../../src/envs/suite-env";
import { imageTag } from "../../../src/envs/terminal/image-plan";
import { dockerfileImage } from "../../../src/envs/terminal/task-options";
import { imageResources, lastWorkdir } from "../../../src/tasks/importers/harbor/image-spec";
import {
  convertTaskDir,
  type HostPackages,
  importHarbor,
} from "../../../src/tasks/importers/harbor/import-harbor";
import { loadTaskDir } from "../../../src/tasks/loading/load";
import { runCli, runCliJson } from "../../helpers/cli";
import { ensureFixtureBaseImage } from "../../helpers/debian-fixture-image";
import { dockerDaemon } from "../../helpers/docker-daemon";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor-docker");
const WORDS = join(FIXTURES, "words-home");
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** This machine ships and has nothing: the Docker path must not care. */
const bareHost: HostPackages = { installed: async () => new Set(), available: async () => new Set() };

function imported(dir = WORDS): Task {
  const converted = convertTaskDir(dir, "search", { sandbox: "docker", buildNetwork: "none" });
  if (!converted.ok) throw new Error(converted.reason);
  return converted.task;
}

describe("importing a Harbor task for the Docker path", () => {
  it("carries the Dockerfile, its build context with modes, the resources and the tests' run-time installs", () => {
    const task = imported();
    expect(() => taskSchema.parse(task)).not.toThrow();
    const env = task.env as TerminalEnvSpec;
    expect(env.sandbox).toBe("docker");
    expect(env.files).toEqual({});
    expect(env.setup).toBeUndefined();
    expect(env.env_vars).toBeUndefined();
    expect(env.image?.dockerfile).toContain("COPY --from=notes /out/notes.txt ./notes.txt\n");
    expect(Object.keys(env.image?.context ?? {})).toEqual(["greet.sh", "words.txt"]);
    expect(env.image?.executable).toEqual(["greet.sh"]);
    expect(env.image?.build_network).toBe("none");
    expect(env.image?.resources).toEqual({ cpus: 1, memory_mb: 1024, storage_mb: 2048 });
    // test.sh's `apt-get install -y hsearch-fixture-words` goes into the image's run-time layer, not the host.
    expect(env.image?.run_packages).toEqual({ debian: ["hsearch-fixture-words"], python: [] });
    expect(env.requires).toEqual({ debian: [], python: [], network: [], services: [], root: [] });
    // Harbor bounds a command only by the agent's timeout; the tests and solution start in the image's WORKDIR.
    expect(env.timeouts).toEqual({ agent_sec: 300, verifier_sec: 120, setup_sec: 300, command_sec: 300 });
    expect(((task.reference as TerminalReference).solution ?? "").split("\n").slice(0, 2)).toEqual([
      "#!/bin/bash",
      "cd /home/user",
    ]);
    expect(task.verify.kind === "terminal_test" && task.verify.script).not.toContain("apt-get install");
  });

  it("the namespace path skips the fixture and says the Docker path runs it; --sandbox docker imports it", async () => {
    const plain = await runCli(["tasks", "import-harbor", FIXTURES, "--out", temp("hsearch-hd-ns-")]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(
      /skipped \S*words-home: it copies from another image \(COPY --from at environment\/Dockerfile:13\) \(the Docker path runs it: --sandbox docker\)/,
    );
    const out = temp("hsearch-hd-docker-");
    const docker = await runCliJson([
      "tasks",
      "import-harbor",
      FIXTURES,
      "--out",
      out,
      "--sandbox",
      "docker",
      "--build-network",
      "host",
    ]);
    expect(docker.json).toMatchObject({ imported: 1, skipped: 0, failed: 0 });
    const tasks = loadTaskDir(out).map((loaded) => loaded.task.env as TerminalEnvSpec);
    expect(tasks.map((env) => env.image?.build_network)).toEqual(["host"]);
    const bad = await runCli(["tasks", "import-harbor", FIXTURES, "--sandbox", "vm"]);
    expect(bad.code).toBe(2);
  });

  it("still skips what no container can run offline: a solution that fetches, docker compose", async () => {
    const dir = temp("hsearch-hd-skip-");
    cpSync(WORDS, join(dir, "fetch"), { recursive: true });
    writeFileSync(
      join(dir, "fetch", "solution", "solve.sh"),
      "#!/bin/bash\ncurl -sO https://example.com/x\n",
    );
    cpSync(WORDS, join(dir, "compose"), { recursive: true });
    writeFileSync(join(dir, "compose", "environment", "docker-compose.yaml"), "services: {}\n");
    const result = await importHarbor(dir, "search", { host: bareHost, sandbox: "docker" });
    expect(result.tasks).toEqual([]);
    expect(result.skipped.map(({ category, reason }) => `${category}: ${reason}`).sort()).toEqual([
      "compose: the environment needs docker compose (environment/docker-compose.yaml)",
      "network: it needs network (curl at solution/solve.sh:2); --include-unrunnable imports it anyway",
    ]);
  });

  it("a prebuilt image without a Dockerfile becomes a one-line Dockerfile", () => {
    const dir = temp("hsearch-hd-prebuilt-");
    cpSync(WORDS, join(dir, "t"), { recursive: true });
    rmSync(join(dir, "t", "environment"), { recursive: true });
    writeFileSync(
      join(dir, "t", "task.toml"),
      '[environment]\ndocker_image = "example.org/team/task:1"\nmemory_mb = 512\n',
    );
    const env = imported(join(dir, "t")).env as TerminalEnvSpec;
    expect(env.image).toEqual({
      dockerfile: "FROM example.org/team/task:1\n",
      prebuilt: "example.org/team/task:1",
      build_network: "none",
      resources: { memory_mb: 512 },
      run_packages: { debian: ["hsearch-fixture-words"], python: [] },
    });
  });

  it("reads Harbor's sizes and refuses bad ones naming task.toml and the field", () => {
    expect(imageResources({ cpus: 2, memory: "2G", storage: "10G" }, "task.toml")).toEqual({
      cpus: 2,
      memory_mb: 2048,
      storage_mb: 10240,
    });
    expect(imageResources({ memory: "512M", storage_mb: 100 }, "task.toml")).toEqual({
      memory_mb: 512,
      storage_mb: 100,
    });
    expect(imageResources({ memory: "1.5GiB" }, "task.toml")).toEqual({ memory_mb: 1536 });
    expect(() => imageResources({ memory: "lots" }, "/t/task.toml")).toThrow(
      /\/t\/task\.toml.*environment\.memory must be a size such as "2G" or "512M", got "lots"|environment\.memory must be a size/,
    );
    expect(() => imageResources({ cpus: 0 }, "task.toml")).toThrow(
      /environment\.cpus must be a positive number/,
    );
    expect(() => imageResources({ memory_mb: 1.5 }, "task.toml")).toThrow(
      /environment\.memory_mb must be a positive whole number/,
    );
  });

  it("follows WORKDIR through stages and relative paths", () => {
    expect(lastWorkdir("FROM a\nWORKDIR /app\nWORKDIR site\n")).toBe("/app/site");
    expect(lastWorkdir("FROM a AS build\nWORKDIR /src\nFROM build\nRUN x\n")).toBe("/src");
    expect(lastWorkdir("FROM a AS build\nWORKDIR /src\nFROM b\nCOPY --from=build /src /x\n")).toBeUndefined();
    expect(lastWorkdir("FROM a\nWORKDIR /app/../home/./user/\n")).toBe("/home/user");
  });

  it("the task format refuses an image outside a container and build-context paths that leave it", () => {
    const task = imported();
    const env = task.env as TerminalEnvSpec;
    const issues = (changed: Partial<TerminalEnvSpec>) =>
      taskSchema
        .safeParse({ ...task, env: { ...env, ...changed } })
        .error?.issues.map((issue) => issue.message) ?? [];
    expect(issues({ sandbox: "namespaces" })).toEqual([
      "a task with an image runs in a container: sandbox must be docker or podman",
    ]);
    expect(issues({ image: { dockerfile: "FROM x\n", context: { "../etc/passwd": "x" } } })).toEqual([
      "build-context path '../etc/passwd' refused: '..' segment leaves or aliases the directory",
    ]);
    expect(issues({ image: { dockerfile: "FROM x\n", build_network: "bridge" as "host" } })).toHaveLength(1);
  });
});

describe("the Docker path end to end, with a real docker daemon", () => {
  it("builds the fixture's own Dockerfile; its solution passes its verifier, doing nothing fails, the episode is the image's", async () => {
    dockerDaemon();
    ensureFixtureBaseImage();
    const task = imported();
    // Only this fixture's images and containers: other tests (and other users of the daemon) run their own.
    const spec = (task.env as TerminalEnvSpec).image;
    if (spec === undefined) throw new Error("the fixture is imported for the Docker path");
    const own = imageTag(dockerfileImage(spec));
    const before = new Set(harborImages(own));
    try {
      const rewardAfter = async (script?: string) => {
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
      };
      expect(await rewardAfter((task.reference as TerminalReference).solution)).toBe(1);
      expect(await rewardAfter()).toBe(0);
      const env = await createTaskEnvironment(task);
      try {
        const look = await env.call(
          "bash",
          {
            command:
              "pwd; id -u; wc -l < /data/words.txt; cat notes.txt; greet; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; " +
              "{ cat /sys/fs/cgroup/memory.max || cat /sys/fs/cgroup/memory/memory.limit_in_bytes; } 2>/dev/null",
          },
          { step: 1, author: "agent" },
        );
        expect(look.output).toBe(
          "/home/user\n0\n4\nmade in the first stage\nhello from the image\nlo\n1073741824\n",
        );
        // A file the agent makes in the WORKDIR is an effect of its call; one outside it is not watched.
        const wrote = await env.call(
          "bash",
          { command: "echo 4 > count.txt; echo x > /data/extra" },
          { step: 2, author: "agent" },
        );
        expect(wrote.wrote).toBe(true);
        expect(env.effects().at(-1)?.files?.created).toEqual(["count.txt"]);
      } finally {
        await env.close();
      }
      // Through the command line: the oracle solves it.
      const out = temp("hsearch-hd-eval-");
      writeFileSync(join(out, `${task.id}.json`), JSON.stringify(task));
      const evaluated = await runCli([
        "eval",
        "--harness",
        join(PACKAGE_ROOT, "harnesses", "abandon"),
        "--tasks",
        out,
        "--model",
        "oracle",
        "--json",
      ]);
      expect(evaluated.code, evaluated.stderr).toBe(0);
      expect(JSON.parse(evaluated.stdout).summary.feasible).toMatchObject({ n: 1, solve: 1 });
    } finally {
      const left = execFileSync("docker", ["ps", "--all", "--quiet", "--filter", `ancestor=${own}`], {
        encoding: "utf8",
      });
      expect(left.trim()).toBe("");
      const made = harborImages(own).filter((tag) => !before.has(tag));
      if (made.length > 0) execFileSync("docker", ["rmi", "--force", ...made], { stdio: "ignore" });
    }
  }, 300_000);
});

/** The fixture's image and the run-time layers made on it (`<tag>-<hash>`). */
function harborImages(own: string): string[] {
  return execFileSync("docker", ["image", "ls", "--format", "{{.Repository}}:{{.Tag}}", "hsearch-harbor"], {
    encoding: "utf8",
  })
    .split("\n")
    .filter((tag) => tag === own || tag.startsWith(`${own}-`));
}
