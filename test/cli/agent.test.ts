/**
 * `hsearch agent` in a local directory: each way an episode ends has its own exit status (done 0, deferred 3, out
 * of steps 4, model error 5), the records land under --out, and bad flags are exit 2 naming the flag.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_EXIT_CODES } from "../../src/api/agent";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { atifProblems } from "../helpers/atif-schema";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  openaiError,
  type ReplyScript,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";

const HARNESS = join(PACKAGE_ROOT, "harnesses", "bare");
let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function agent(script: ReplyScript, extra: string[] = []) {
  server = await startFakeOpenAIServer(script);
  const work = mkdtempSync(join(tmpdir(), "hsearch-agent-"));
  writeFileSync(join(work, "notes.txt"), "hello\n");
  const out = join(work, "..", `${work.split("/").pop()}-out`);
  const result = await runCli(
    [
      "agent",
      "--harness",
      HARNESS,
      "--model",
      "openai:fake",
      "--workdir",
      work,
      "--out",
      out,
      ...extra,
      "Do it.",
    ],
    { cwd: work, env: { ...process.env, OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.baseURL } },
  );
  return { result, work, out };
}

const bash = (command: string) => openaiCompletion({ toolCalls: [{ name: "bash", arguments: { command } }] });

describe("hsearch agent's exit status", () => {
  it("done (0): the command ran in --workdir, and both trajectories are written", async () => {
    const { result, work, out } = await agent((_r, i) =>
      i === 0 ? bash("cat notes.txt > copy.txt") : openaiCompletion({ content: "Copied." }),
    );
    expect(result.code, result.stderr).toBe(AGENT_EXIT_CODES.done);
    expect(result.stdout).toContain("done after");
    expect(readFileSync(join(work, "copy.txt"), "utf8")).toBe("hello\n");
    expect(atifProblems(JSON.parse(readFileSync(join(out, "trajectory.json"), "utf8")))).toEqual([]);
    expect(existsSync(join(out, "hsearch-trajectory.json"))).toBe(true);
  });

  it("deferred (3): infeasible.md in the work directory, its reason printed", async () => {
    const { result, work } = await agent((_r, i) =>
      i === 0
        ? openaiCompletion({
            toolCalls: [
              { name: "write_file", arguments: { path: "infeasible.md", content: "No input given." } },
            ],
          })
        : openaiCompletion({ content: "I cannot." }),
    );
    expect(result.code, result.stderr).toBe(AGENT_EXIT_CODES.deferred);
    expect(result.stdout).toContain("No input given.");
    expect(readFileSync(join(work, "infeasible.md"), "utf8")).toBe("No input given.");
  });

  it("out of steps (4) at --max-steps", async () => {
    const { result } = await agent(() => bash("true"), ["--max-steps", "2"]);
    expect(result.code, result.stderr).toBe(AGENT_EXIT_CODES.out_of_steps);
    expect(result.stdout).toContain("out_of_steps after 2 steps");
  });

  it("model error (5) when the provider refuses", async () => {
    const { result } = await agent(() => openaiError(401, "Access denied for this model."));
    expect(result.code, result.stderr).toBe(AGENT_EXIT_CODES.model_error);
    expect(result.stdout, result.stdout).toContain("Access denied for this model.");
  });

  it("a bad --max-steps or --workdir is exit 2 naming it", async () => {
    const steps = await agent(() => bash("true"), ["--max-steps", "0"]);
    expect(steps.result.code).toBe(2);
    expect(steps.result.stderr).toContain("--max-steps");
    const missing = await runCli(
      ["agent", "--harness", HARNESS, "--model", "sim:default", "--workdir", "/nonexistent-dir", "Do it."],
      { cwd: tmpdir() },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("/nonexistent-dir");
  });
});
