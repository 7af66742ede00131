/**
 * Harbor datasets as researchers bring them (generated or in-house task sets), reproduced by a fixture of our own
 * (test/fixtures/harbor-dataset): no solution/, a base image from the benchmark's own registry, test dependencies
 * installed with `pip3 install --break-system-packages`, and `allow_internet = true` in task.toml.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { Task, TerminalEnvSpec } from "../../../src/domain/task";
import { loadTaskDir } from "../../../src/tasks/load";
import { runCli } from "../../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../../helpers/fake-openai-server";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor-dataset");
let out: string;
let task: Task;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "hsearch-harbor-dataset-"));
  const imported = await runCli(["tasks", "import-harbor", FIXTURES, "--out", out]);
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.stdout).toContain("imported 1, skipped 0, failed 0");
  task = (loadTaskDir(out)[0] as { task: Task }).task;
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

describe("a Harbor task without a reference solution", () => {
  it("imports with no reference, its pip test dependency as a requirement, and allow_internet recorded", () => {
    expect(task.reference).toEqual({});
    const env = task.env as TerminalEnvSpec;
    expect(env.allow_internet).toBe(true);
    expect(env.requires?.python).toEqual(["pytest"]);
    expect(env.files).toEqual({ "essay.txt": expect.stringContaining("Agents that know when to stop") });
  });

  it("is the oracle's unsupported outcome, counted apart: never a crash, never a silent 0", async () => {
    const result = await evalWith("oracle");
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary.infra_errors).toEqual({ no_reference: 1 });
    expect(report.summary.feasible?.n ?? 0).toBe(0);
  });

  it("is run by a model and scored by its own verifier (the simulator, and a model over the OpenAI wire)", async () => {
    const simulated = await evalWith("sim:default");
    expect(simulated.code, simulated.stderr).toBe(0);
    expect(JSON.parse(simulated.stdout).summary.feasible).toMatchObject({ n: 1, solve: 0 });

    server = await startFakeOpenAIServer((request: RecordedRequest) => {
      const turns = (request.body as { messages: Array<{ role: string }> }).messages.filter(
        (message) => message.role === "assistant",
      ).length;
      return turns === 0
        ? openaiCompletion({
            toolCalls: [{ name: "bash", arguments: { command: "wc -w < /app/essay.txt > /app/count.txt" } }],
          })
        : openaiCompletion({ content: "count.txt holds the number of words." });
    });
    const real = await evalWith("openai:gpt-4.1-mini", {
      ...process.env,
      OPENAI_API_KEY: "test-key",
      OPENAI_BASE_URL: server.baseURL,
    });
    expect(real.code, real.stderr).toBe(0);
    expect(JSON.parse(real.stdout).summary.feasible).toMatchObject({ n: 1, solve: 1 });
  });
});
