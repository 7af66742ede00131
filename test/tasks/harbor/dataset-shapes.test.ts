/**
 * Harbor datasets as researchers bring them (generated or in-house task sets), reproduced by a fixture of our own
 * (test/fixtures/harbor-dataset): no solution/, a base image from the benchmark's own registry, test dependencies
 * installed with `pip3 install --break-system-packages`, and `allow_internet = true` in task.toml; two of them work in
 * a directory outside /app (`WORKDIR /home/user` without a solution, `WORKDIR /root/project` with one).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { Task, TerminalEnvSpec } from "../../../src/domain/task";
import { loadTaskDir } from "../../../src/tasks/loading/load";
import { runCli, runCliJson } from "../../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../../helpers/fake-openai-server";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor-dataset");
let out: string;
let task: Task;
let home: Task;
let project: Task;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "hsearch-harbor-dataset-"));
  const imported = await runCliJson(["tasks", "import-harbor", FIXTURES, "--out", out]);
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.json).toMatchObject({ imported: 3, skipped: 0, failed: 0 });
  const byId = new Map(loadTaskDir(out).map(({ task }) => [task.id, task]));
  task = byId.get("harbor-word-count") as Task;
  home = byId.get("harbor-home-notes") as Task;
  project = byId.get("harbor-project-root") as Task;
});
const evalDirs: string[] = [];
function evalDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-harbor-dataset-eval-"));
  evalDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of [out, ...evalDirs]) rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function evalWith(model: string, env: NodeJS.ProcessEnv = process.env) {
  return runCli(
    [
      "eval",
      "--harness",
      "harnesses/bare",
      "--tasks",
      out,
      "--split",
      "search",
      "--model",
      model,
      "--json",
      // Each evaluation keeps its episodes: in a directory of the test's, not the repository's runs/.
      "--out",
      evalDir(),
    ],
    { env },
  );
}

/** Each task's solve rate in an evaluation's JSON report. */
function solves(stdout: string): Record<string, number | null> {
  const report = JSON.parse(stdout) as { tasks: Array<{ id: string; solve: number | null }> };
  return Object.fromEntries(report.tasks.map((row) => [row.id, row.solve]));
}

describe("Harbor tasks without a reference solution, or working outside /app", () => {
  it("imports with no reference, its pip test dependency as a requirement, and allow_internet recorded", () => {
    expect(task.reference).toEqual({});
    const env = task.env as TerminalEnvSpec;
    expect(env.allow_internet).toBe(true);
    expect(env.requires?.python).toEqual(["pytest"]);
    expect(env.files).toEqual({ "essay.txt": expect.stringContaining("Agents that know when to stop") });
  });

  it("tasks requirements shows that a task allows internet, and that only eval --allow-internet grants it", async () => {
    const text = await runCli(["tasks", "requirements", FIXTURES]);
    expect(text.stdout).toMatch(
      /harbor-home-notes\n( {2}.*\n)* {2}internet: allowed by its task.toml \(granted only with eval --allow-internet\)/,
    );
    const json = JSON.parse((await runCli(["tasks", "requirements", FIXTURES, "--json"])).stdout);
    expect(json.tasks.map((entry: { allowInternet?: boolean }) => entry.allowInternet)).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("makes a WORKDIR outside /app the task's work directory: its copies the workspace's, the rest set up", () => {
    const env = home.env as TerminalEnvSpec;
    expect(home.reference).toEqual({});
    expect(env.workdir).toBe("/home/user");
    expect(Object.keys(env.files ?? {}).sort()).toEqual(["notes/monday.txt", "notes/tuesday.txt"]);
    // The copy to /app is placed by the setup (an ordinary directory there), before the RUN step in the workdir.
    expect(env.setup).toMatch(/cat > '\/app\/defaults.json'[\s\S]*cd \/home\/user && mkdir -p reports/);
    expect((project.env as TerminalEnvSpec).workdir).toBe("/root/project");
    // Harbor runs the solution from the WORKDIR.
    expect((project.reference as { solution?: string }).solution).toContain("cd /root/project");
  });

  it("the oracle passes the task with a solution and reports the others as unsupported, counted apart", async () => {
    const result = await evalWith("oracle");
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary.infra_errors).toEqual({ no_reference: 2 });
    expect(report.summary.feasible).toMatchObject({ n: 1, solve: 1 });
    expect(solves(result.stdout)["harbor-project-root"]).toBe(1);
  });

  it("is run by a model and scored by its own verifier (the simulator, and a model over the OpenAI wire)", async () => {
    const simulated = await evalWith("sim:default");
    expect(simulated.code, simulated.stderr).toBe(0);
    expect(JSON.parse(simulated.stdout).summary.feasible).toMatchObject({ n: 3 });
    // No reference: the simulator has nothing to follow, and its verifier says so.
    expect(solves(simulated.stdout)).toMatchObject({ "harbor-word-count": 0, "harbor-home-notes": 0 });

    server = await startFakeOpenAIServer((request: RecordedRequest) => {
      const messages = (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages;
      const turns = messages.filter((message) => message.role === "assistant").length;
      const prompt = JSON.stringify(messages);
      // Relative paths in the work directory: the agent's shell starts in /home/user. The project task is left
      // undone, so its verifier must fail it.
      const command = prompt.includes("essay.txt")
        ? "wc -w < /app/essay.txt > /app/count.txt"
        : prompt.includes("notes/")
          ? "cat notes/*.txt | wc -l > reports/total.txt"
          : undefined;
      return turns === 0 && command !== undefined
        ? openaiCompletion({ toolCalls: [{ name: "bash", arguments: { command } }] })
        : openaiCompletion({ content: "Done." });
    });
    const real = await evalWith("openai:gpt-4.1-mini", {
      ...process.env,
      OPENAI_API_KEY: "test-key",
      OPENAI_BASE_URL: server.baseURL,
    });
    expect(real.code, real.stderr).toBe(0);
    expect(solves(real.stdout)).toEqual({
      "harbor-word-count": 1,
      "harbor-home-notes": 1,
      "harbor-project-root": 0,
    });
  });
});
