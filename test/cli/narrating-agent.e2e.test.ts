import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { DEFAULT_PROMPTS } from "../../src/harness/default-prompts";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  type ScriptedReply,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";

/**
 * A model that narrates before it acts, as real models do, on terminal tasks (no customer) through the real CLI and
 * the OpenAI wire format: the harness's continue message (DESIGN §4) must give it its turn back.
 */
const FEASIBLE = "terminal-access-5xx-01";
const BLOCKED = "terminal-access-5xx-01-ambiguous";
const taskFile = (id: string) => join(PACKAGE_ROOT, "tasks", "terminal", "search", `${id}.json`);

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function taskDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-narrate-"));
  mkdirSync(join(dir, "search"));
  for (const id of [FEASIBLE, BLOCKED]) cpSync(taskFile(id), join(dir, "search", `${id}.json`));
  return dir;
}

const feasibleTask = JSON.parse(readFileSync(taskFile(FEASIBLE), "utf8")) as {
  instruction: string;
  sim: { steps: Array<{ arguments: { command: string } }> };
};
/** The feasible task's own commands (its simulator cues), to run after the narration. */
const commands = feasibleTask.sim.steps.map((step) => step.arguments.command);

interface Body {
  messages: Array<{ role: string; content: string | null }>;
}

const say = (content: string): ScriptedReply => openaiCompletion({ content });
const bash = (command: string): ScriptedReply =>
  openaiCompletion({ toolCalls: [{ name: "bash", arguments: { command } }] });

/** Agent turns by task, chosen by how many assistant turns the conversation already has. */
function narrator(script: (blocked: boolean, turn: number) => ScriptedReply) {
  return (request: RecordedRequest): ScriptedReply => {
    const { messages } = request.body as Body;
    const blocked = (messages[1]?.content ?? "").includes("internal monitoring");
    return script(blocked, messages.filter((m) => m.role === "assistant").length);
  };
}

function evalTerminal(baseURL: string, harness = "harnesses/bare") {
  return runCli(
    [
      "eval",
      "--harness",
      harness,
      "--tasks",
      taskDir(),
      "--split",
      "search",
      "--model",
      "openai:gpt-4.1-mini",
      "--json",
    ],
    { env: { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: baseURL } },
  );
}

const requestsOf = (instruction: string) =>
  (server?.requests ?? [])
    .map((r) => (r.body as Body).messages)
    .filter((messages) => messages[1]?.content === instruction);

describe("a narrating model on terminal tasks, through `hsearch eval` and the OpenAI wire format", () => {
  it("narrates, gets the continue message, then solves the task and defers at the step after it", async () => {
    server = await startFakeOpenAIServer(
      narrator((blocked, turn) => {
        if (blocked)
          return turn === 0
            ? say("I'll start by reading the request and looking at access.log.")
            : openaiCompletion({
                toolCalls: [
                  {
                    name: "write_file",
                    arguments: {
                      path: "infeasible.md",
                      content:
                        "ambiguous: the request does not say which client addresses are the internal monitoring.\n",
                    },
                  },
                ],
              });
        if (turn === 0) return say("I'll start by looking at access.log in /app.");
        const command = commands[turn - 1];
        if (command !== undefined) return bash(command);
        return say("reports/5xx-by-path.txt is written.");
      }),
    );
    const result = await evalTerminal(server.baseURL);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary.feasible).toMatchObject({ n: 1, solve: 1, false_abstention: 0 });
    // The deferral is the agent's, at step 2 (the turn after the continue message); the blocker shows at step 1.
    expect(report.summary.blocked).toMatchObject({
      n: 1,
      m1: 1,
      m2: 1,
      authorship: 1,
      strict_sa: 1,
      absrec: { "1": 0, "2": 1 },
      spl: 0.5,
    });
    // Over the wire: the narration, then the harness's own message as a user turn — no task data added to it.
    const feasible = requestsOf(feasibleTask.instruction);
    const second = feasible.find((messages) => messages.filter((m) => m.role === "assistant").length === 1);
    expect(second?.slice(-2)).toEqual([
      { role: "assistant", content: "I'll start by looking at access.log in /app." },
      { role: "user", content: DEFAULT_PROMPTS.continue },
    ]);
    // The narration, the four commands, the final message and its restatement after the second continue message.
    expect(feasible).toHaveLength(1 + commands.length + 2);
    expect(feasible.at(-1)?.at(-1)).toEqual({ role: "user", content: DEFAULT_PROMPTS.continue });
  });

  it("a model that only narrates ends at its second text-only turn (agent_stopped), and max_continues: 0 at its first", async () => {
    server = await startFakeOpenAIServer(
      narrator((_blocked, turn) => say(`Thinking about the task (${turn}).`)),
    );
    const result = await evalTerminal(server.baseURL);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary.feasible).toMatchObject({ n: 1, solve: 0 });
    expect(report.summary.blocked).toMatchObject({ n: 1, m2: 0, strict_sa: 0 });
    // Two calls per episode: the narration and the answer to the one continue message.
    expect(server.requests).toHaveLength(4);
    expect(report.summary.usage.by_role.agent.calls).toBe(4);

    const off = mkdtempSync(join(tmpdir(), "hsearch-harness-"));
    cpSync(join(PACKAGE_ROOT, "harnesses", "bare"), off, { recursive: true });
    const yaml = readFileSync(join(off, "harness.yaml"), "utf8");
    writeFileSync(
      join(off, "harness.yaml"),
      yaml.replace("temperature: 0", "temperature: 0\n  max_continues: 0"),
    );
    const before = server.requests.length;
    const stopped = await evalTerminal(server.baseURL, off);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(server.requests.length - before).toBe(2);
    expect(JSON.stringify(server.requests.slice(before).map((r) => r.body))).not.toContain(
      DEFAULT_PROMPTS.continue,
    );
  });

  it("a bad agent.max_continues is bad input naming the file, the field and the line (exit 2)", async () => {
    const bad = mkdtempSync(join(tmpdir(), "hsearch-harness-"));
    cpSync(join(PACKAGE_ROOT, "harnesses", "bare"), bad, { recursive: true });
    const yaml = readFileSync(join(bad, "harness.yaml"), "utf8");
    writeFileSync(
      join(bad, "harness.yaml"),
      yaml.replace("temperature: 0", "temperature: 0\n  max_continues: -1"),
    );
    const result = await runCli(["eval", "--harness", bad, "--tasks", taskDir(), "--split", "search"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(bad, "harness.yaml")}:6: field 'agent.max_continues'`);
    expect(result.stderr).toMatch(/Too small: expected number to be >=0/);
  });
});
