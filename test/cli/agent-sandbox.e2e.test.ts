/**
 * `hsearch agent` started inside an imported Terminal-Bench-format task's sandbox (the bubblewrap or unshare
 * episode sandbox `eval` runs the task in), with a model over OpenAI's wire (a scripted server on 127.0.0.1), gives
 * what `hsearch eval` of that task gives with the same replies: the same model requests (so the same prompts and
 * tool calls), the same deferral (`infeasible.md`) and the same verifier outcome; its exit status says how it ended.
 * The tasks ask for internet (granted here) so the sandbox shares the host's network and reaches the server.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_EXIT_CODES } from "../../src/api/agent";
import { openRun } from "../../src/api/open-run";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { Task } from "../../src/domain/task";
import { createTaskEnvironment, verifyTaskWithReport } from "../../src/envs/suite-env";
import { TerminalEnv } from "../../src/envs/terminal";
import type { Trajectory } from "../../src/harness/trajectory";
import { loadTaskDir } from "../../src/tasks/loading/load";
import { atifProblems } from "../helpers/atif-schema";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  type ScriptedReply,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";

const HARNESS = join(PACKAGE_ROOT, "harnesses", "bare");
const VERIFY = `#!/bin/bash
if [ "$(cat /app/greeting.txt 2>/dev/null)" = hello ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
`;

/** Two Harbor tasks: one the scripted agent does, one it defers (its input file does not exist). */
const TASKS = {
  greet: "Write the word hello (and nothing else) to /app/greeting.txt.",
  "missing-input": "Copy the word in /app/word.txt to /app/greeting.txt.",
} as const;

type Name = keyof typeof TASKS;

/** The scripted model: by task (its instruction in the request) and by how many agent turns came before. */
const SCRIPT: Record<Name, ScriptedReply[]> = {
  greet: [
    openaiCompletion({
      toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "printf hello > greeting.txt" } }],
    }),
    openaiCompletion({
      toolCalls: [{ id: "call_2", name: "bash", arguments: { command: "cat greeting.txt" } }],
    }),
    openaiCompletion({ content: "greeting.txt holds hello." }),
    openaiCompletion({ content: "Done." }),
  ],
  "missing-input": [
    openaiCompletion({ toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "ls -1" } }] }),
    openaiCompletion({
      toolCalls: [
        {
          id: "call_2",
          name: "write_file",
          arguments: {
            path: "infeasible.md",
            content: "/app/word.txt does not exist, so there is no word to copy.",
          },
        },
      ],
    }),
    openaiCompletion({ content: "I cannot do this task: its input file is missing." }),
    openaiCompletion({ content: "I cannot do this task." }),
  ],
};

function nameOf(text: string): Name {
  const name = (Object.keys(TASKS) as Name[]).find((key) => text.includes(TASKS[key]));
  if (name === undefined) throw new Error(`no task's instruction in ${text.slice(0, 200)}`);
  return name;
}

function reply(request: RecordedRequest): ScriptedReply {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const text = JSON.stringify(messages);
  const name = (Object.keys(TASKS) as Name[]).find((key) => text.includes(TASKS[key]));
  if (name === undefined) return { status: 400, json: { error: { message: "fake server: unknown task" } } };
  const turn = messages.filter((message) => message.role === "assistant").length;
  return SCRIPT[name][turn] ?? { status: 400, json: { error: { message: "fake server: past the script" } } };
}

let work: string;
let tasks: Map<Name, Task>;
let server: FakeOpenAIServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-agent-sandbox-"));
  const harbor = join(work, "harbor");
  for (const [name, instruction] of Object.entries(TASKS)) {
    const dir = join(harbor, name);
    mkdirSync(join(dir, "environment"), { recursive: true });
    mkdirSync(join(dir, "tests"), { recursive: true });
    writeFileSync(
      join(dir, "task.toml"),
      'version = "1.0"\n\n[environment]\nallow_internet = true\n\n[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 120.0\n',
    );
    writeFileSync(join(dir, "instruction.md"), `${instruction}\n`);
    writeFileSync(join(dir, "environment", "notes.txt"), "the task's files\n");
    writeFileSync(join(dir, "tests", "test.sh"), VERIFY, { mode: 0o755 });
  }
  const imported = await runCli(["tasks", "import-harbor", harbor, "--out", join(work, "tasks")], {
    cwd: work,
  });
  expect(imported.code, imported.stderr).toBe(0);
  tasks = new Map(
    loadTaskDir(join(work, "tasks")).map((loaded) => [nameOf(loaded.task.instruction), loaded.task]),
  );
  expect([...tasks.keys()].sort()).toEqual(Object.keys(TASKS).sort());
  server = await startFakeOpenAIServer(reply);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** What both runs are compared on: the model's requests' messages, the tool calls, the end, the deferral, the reward. */
interface Outcome {
  requests: unknown[];
  calls: Array<{ name: string; arguments: unknown }>;
  end: string;
  deferred: boolean;
  reward: number;
}

function callsOf(trajectory: Trajectory): Outcome["calls"] {
  return trajectory.events.flatMap((event) =>
    event.type === "tool_call" && event.author === "agent"
      ? [{ name: event.name, arguments: event.arguments }]
      : [],
  );
}

function requestsOf(from: number, task: Name): unknown[] {
  return server.requests
    .slice(from)
    .filter((request) => JSON.stringify(request.body).includes(TASKS[task]))
    .map((request) => {
      const body = request.body as { messages: unknown; tools: unknown };
      return { messages: body.messages, tools: body.tools };
    });
}

const openaiEnv = () => ({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL });

async function evalOutcomes(): Promise<Map<Name, Outcome>> {
  const from = server.requests.length;
  const evalDir = join(work, "evaluation");
  const result = await runCli(
    [
      "eval",
      "--harness",
      HARNESS,
      "--tasks",
      join(work, "tasks"),
      "--model",
      "openai:fake-model",
      "--allow-internet",
      "--out",
      evalDir,
    ],
    { cwd: work, env: { ...process.env, ...openaiEnv() } },
  );
  expect(result.code, result.stderr).toBe(0);
  const reader = openRun(evalDir);
  try {
    const commit = reader.candidates()[0]?.commit ?? "";
    const outcomes = new Map<Name, Outcome>();
    for (const rollout of reader.rollouts(commit)) {
      const trajectory = reader.trajectory(rollout);
      const name = nameOf(JSON.stringify(trajectory.events.slice(0, 2)));
      outcomes.set(name, {
        requests: requestsOf(from, name),
        calls: callsOf(trajectory),
        end: trajectory.end.reason,
        deferred: trajectory.events.some((event) => event.type === "deferral"),
        reward: trajectory.reward ?? -1,
      });
    }
    return outcomes;
  } finally {
    reader.close();
  }
}

/**
 * hsearch's sources and modules in the sandbox's /tmp: hard links when the checkout and the temporary directory share
 * a file system, a copy when they do not (a tmpfs /tmp).
 */
function linkHsearchInto(tmp: string): string {
  const target = join(tmp, "hsearch");
  mkdirSync(target);
  for (const entry of [
    "src",
    "node_modules",
    "package.json",
    "tsconfig.json",
    "harnesses",
    "config",
    "data",
  ]) {
    if (!existsSync(join(PACKAGE_ROOT, entry))) continue;
    try {
      execFileSync("cp", ["-al", join(PACKAGE_ROOT, entry), join(target, entry)], { stdio: "pipe" });
    } catch {
      rmSync(join(target, entry), { recursive: true, force: true });
      execFileSync("cp", ["-a", join(PACKAGE_ROOT, entry), join(target, entry)]);
    }
  }
  return "/tmp/hsearch";
}

async function agentOutcome(name: Name): Promise<Outcome & { exitCode: number | null; atif: unknown }> {
  const task = tasks.get(name);
  if (!task) throw new Error(`task ${name} was not imported`);
  const env = await createTaskEnvironment(task, { allowInternet: true });
  if (!(env instanceof TerminalEnv)) throw new Error("not a terminal environment");
  try {
    const from = server.requests.length;
    const root = linkHsearchInto(env.tmp);
    const tsx = pathToFileURL(
      createRequire(join(PACKAGE_ROOT, "package.json")).resolve("tsx").replace(PACKAGE_ROOT, root),
    ).href;
    const run = await env.runCommand(
      [
        "node",
        "--import",
        tsx,
        `${root}/src/cli/bin.ts`,
        "agent",
        "--harness",
        `${root}/harnesses/bare`,
        "--model",
        "openai:fake-model",
        "--out",
        "/tmp/agent-out",
        "--task-id",
        task.id,
        task.instruction,
      ],
      { timeoutMs: 120_000, env: { ...openaiEnv(), HOME: "/tmp" }, displayBytes: 64 * 1024 },
    );
    const own = JSON.parse(
      readFileSync(join(env.tmp, "agent-out", "hsearch-trajectory.json"), "utf8"),
    ) as Trajectory;
    const verified = await verifyTaskWithReport(task, env, {
      completed: true,
      agentMessages: own.events.flatMap((event) =>
        event.type === "message" && event.author === "agent" ? [event.text] : [],
      ),
    });
    expect(run.stdout).toContain(`(exit ${run.exitCode})`);
    return {
      requests: requestsOf(from, name),
      calls: callsOf(own),
      end: own.end.reason,
      deferred: existsSync(join(env.workspace, "infeasible.md")),
      reward: verified.reward,
      exitCode: run.exitCode,
      atif: JSON.parse(readFileSync(join(env.tmp, "agent-out", "trajectory.json"), "utf8")),
    };
  } finally {
    await env.close();
  }
}

describe("hsearch agent in a task's sandbox", () => {
  it("gives eval's requests, tool calls, deferral and verifier outcome for the same replies", async () => {
    const evaluated = await evalOutcomes();
    for (const name of Object.keys(TASKS) as Name[]) {
      const { exitCode, atif, ...agent } = await agentOutcome(name);
      const expected = evaluated.get(name);
      expect(expected, name).toBeDefined();
      expect(agent, name).toEqual(expected);
      expect(atifProblems(atif), name).toEqual([]);
      expect(exitCode, name).toBe(name === "greet" ? AGENT_EXIT_CODES.done : AGENT_EXIT_CODES.deferred);
    }
    expect(evaluated.get("greet")).toMatchObject({ reward: 1, deferred: false });
    expect(evaluated.get("missing-input")).toMatchObject({ reward: 0, deferred: true });
    expect(evaluated.get("greet")?.calls).toHaveLength(2);
  }, 300_000);
});
