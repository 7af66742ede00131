/**
 * `hsearch agent` in an imported Terminal-Bench-format task's own container, installed and run the way Harbor runs
 * an installed agent (integrations/harbor: the offline bundle and install.sh, then HsearchAgent's run command,
 * driven by the stand-in of Harbor's interface in test/fixtures/harbor-installed-agent), and the task's tests then
 * run in that container as Harbor's verifier runs them, give what `hsearch eval` of the task (imported for the
 * Docker path, so its episode also runs in a container of the task's image) gives with the same model replies: the
 * same model requests (prompts, tools, tool calls), the same effects, the same deferral (`infeasible.md`), the same
 * verifier reward and the same episode score.
 *
 * The model is a scripted OpenAI-wire server on 127.0.0.1. Under `eval` hsearch runs on the host and the task's
 * container has no network; under Harbor hsearch runs inside the container, which here shares the host's network
 * (`--network host`: this machine's docker daemon has no bridge) so that it reaches the server, as a container
 * under Harbor reaches the model's API. The tasks do not grant internet, so both runs tell the agent its shell has
 * none (`network=false`, the agent's `--no-network`).
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_EXIT_CODES } from "../../src/api/agent";
import { openRun } from "../../src/api/open-run";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { Task } from "../../src/domain/task";
import type { Trajectory } from "../../src/harness/trajectory";
import { scoreFeasible } from "../../src/scoring/episode";
import { loadTaskDir } from "../../src/tasks/loading/load";
import { atifProblems } from "../helpers/atif-schema";
import { runCli, runCliJson } from "../helpers/cli";
import { compiledPackage } from "../helpers/compiled-package";
import { ensureFixtureBaseImage, FIXTURE_BASE_IMAGE } from "../helpers/debian-fixture-image";
import { dockerDaemon } from "../helpers/docker-daemon";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  type ScriptedReply,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";

const HARNESS = join(PACKAGE_ROOT, "harnesses", "bare");
const INTEGRATION = join(PACKAGE_ROOT, "integrations", "harbor");
const STAND_IN = join(PACKAGE_ROOT, "test", "fixtures", "harbor-installed-agent");
const DOCKERFILE = `FROM ${FIXTURE_BASE_IMAGE}\nWORKDIR /app\nCOPY notes.txt /app/notes.txt\n`;
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
      toolCalls: [{ id: "call_2", name: "bash", arguments: { command: "cat greeting.txt notes.txt" } }],
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
let harbor: string;
let bundle: string;
let tasks: Map<Name, Task>;
let server: FakeOpenAIServer;
const containers: string[] = [];
const images: string[] = [];
let harborImagesBefore = new Set<string>();

function docker(args: string[], options: { timeout?: number } = {}): string {
  return execFileSync("docker", args, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: options.timeout ?? 300_000,
  });
}

function harborImages(): string[] {
  return docker(["image", "ls", "--format", "{{.Repository}}:{{.Tag}}", "hsearch-harbor"])
    .split("\n")
    .filter(Boolean);
}

beforeAll(async () => {
  dockerDaemon();
  ensureFixtureBaseImage();
  harborImagesBefore = new Set(harborImages());
  work = mkdtempSync(join(tmpdir(), "hsearch-agent-container-"));
  harbor = join(work, "harbor");
  for (const [name, instruction] of Object.entries(TASKS)) {
    const dir = join(harbor, name);
    mkdirSync(join(dir, "environment"), { recursive: true });
    mkdirSync(join(dir, "tests"), { recursive: true });
    writeFileSync(
      join(dir, "task.toml"),
      'version = "1.0"\n\n[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 120.0\n',
    );
    writeFileSync(join(dir, "instruction.md"), `${instruction}\n`);
    writeFileSync(join(dir, "environment", "Dockerfile"), DOCKERFILE);
    writeFileSync(join(dir, "environment", "notes.txt"), "the task's files\n");
    writeFileSync(join(dir, "tests", "test.sh"), VERIFY, { mode: 0o755 });
  }
  const imported = await runCliJson(
    [
      "tasks",
      "import-harbor",
      harbor,
      "--out",
      join(work, "tasks"),
      "--sandbox",
      "docker",
      "--build-network",
      "none",
    ],
    { cwd: work },
  );
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.json).toMatchObject({ imported: 2, skipped: 0, failed: 0 });
  tasks = new Map(
    loadTaskDir(join(work, "tasks")).map((loaded) => [nameOf(loaded.task.instruction), loaded.task]),
  );
  bundle = join(work, "hsearch-bundle.tgz");
  const compiled = await compiledPackage();
  try {
    execFileSync(
      process.execPath,
      [join(INTEGRATION, "pack-bundle.mjs"), "--out", bundle, "--dist", compiled.dir],
      { stdio: "pipe" },
    );
  } finally {
    compiled.remove();
  }
  server = await startFakeOpenAIServer(reply);
}, 900_000);

afterAll(async () => {
  await server?.close();
  for (const container of containers) execFileSync("docker", ["rm", "-f", container], { stdio: "ignore" });
  const made = [...images, ...harborImages().filter((tag) => !harborImagesBefore.has(tag))];
  if (made.length > 0) execFileSync("docker", ["rmi", "--force", ...made], { stdio: "ignore" });
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What both runs are compared on. */
interface Outcome {
  requests: unknown[];
  calls: Array<{ name: string; arguments: unknown }>;
  effects: unknown[];
  end: string;
  deferred: boolean;
  reward: number;
  seed: number;
  score: unknown;
}

function callsOf(trajectory: Trajectory): Outcome["calls"] {
  return trajectory.events.flatMap((event) =>
    event.type === "tool_call" && event.author === "agent"
      ? [{ name: event.name, arguments: event.arguments }]
      : [],
  );
}

function effectsOf(trajectory: Trajectory): unknown[] {
  return trajectory.events.filter((event) => event.type === "effect");
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
        effects: effectsOf(trajectory),
        end: trajectory.end.reason,
        deferred: trajectory.events.some((event) => event.type === "deferral"),
        reward: trajectory.reward ?? -1,
        seed: trajectory.seed,
        score: rollout.scores,
      });
    }
    return outcomes;
  } finally {
    reader.close();
  }
}

/** The task's image as Harbor builds it: its environment/Dockerfile, that directory the context. */
function buildTaskImage(name: Name): string {
  const dir = join(harbor, name, "environment");
  const tag = `hsearch-test-agent-container:${createHash("sha256").update(name).update(DOCKERFILE).digest("hex").slice(0, 12)}`;
  docker(["build", "--network", "none", "--quiet", "-t", tag, dir]);
  images.push(tag);
  return tag;
}

interface HarborTrial {
  outcome: Outcome;
  exitCode: number;
  status: unknown;
  atif: unknown;
}

/**
 * One Harbor trial: the task's container; the agent's setup (upload, install.sh) and run through HsearchAgent; then
 * the verifier as Harbor runs it (the task's tests uploaded to /tests, `bash /tests/test.sh`, the reward read from
 * /logs/verifier/reward.txt).
 */
async function harborTrial(name: Name, seed: number): Promise<HarborTrial> {
  const task = tasks.get(name);
  if (!task) throw new Error(`task ${name} was not imported`);
  const image = buildTaskImage(name);
  const logs = join(work, "trials", name, "agent");
  const verifierLogs = join(work, "trials", name, "verifier");
  mkdirSync(logs, { recursive: true });
  mkdirSync(verifierLogs, { recursive: true });
  const container = docker([
    "run",
    "-d",
    "--network",
    "host",
    "-v",
    `${logs}:/logs/agent`,
    "-v",
    `${verifierLogs}:/logs/verifier`,
    image,
    "sleep",
    "900",
  ]).trim();
  containers.push(container);
  // The image has no Node: install.sh uses the bundle's. Asked of a container of its own, since `docker exec` on a
  // daemon inside a chroot can see the host's files (test/integrations/harbor-agent.e2e.test.ts).
  expect(() =>
    docker(["run", "--rm", "--network", "none", image, "bash", "-c", "command -v node"]),
  ).toThrow();
  const from = server.requests.length;
  // Not execFileSync: the model server answers from this process's event loop.
  const { stdout: out } = await promisify(execFile)(
    "python3",
    [
      join(STAND_IN, "run_trial.py"),
      "hsearch_agent:HsearchAgent",
      container,
      logs,
      "openai/fake-model",
      task.instruction,
      `harness_dir=${HARNESS}`,
      `bundle=${bundle}`,
      "network=false",
      // The episode's seed eval gave the task: the records (and a seeded provider) then agree.
      `seed=${seed}`,
    ],
    {
      encoding: "utf8",
      env: { ...process.env, ...openaiEnv(), PYTHONPATH: `${STAND_IN}:${INTEGRATION}` },
      timeout: 600_000,
    },
  );
  const trial = JSON.parse(out.trim().split("\n").pop() ?? "{}") as { context?: { metadata?: unknown } };
  expect(readFileSync(join(logs, "setup", "return-code.txt"), "utf8")).toBe("0");
  expect(
    readFileSync(join(logs, "command-0", "return-code.txt"), "utf8"),
    readFileSync(join(logs, "command-0", "stdout.txt"), "utf8"),
  ).toBe("0");
  const own = JSON.parse(readFileSync(join(logs, "hsearch-trajectory.json"), "utf8")) as Trajectory;
  const deferred = docker([
    "exec",
    container,
    "bash",
    "-c",
    "test -f /app/infeasible.md && echo yes || echo no",
  ]).trim();
  docker(["cp", join(harbor, name, "tests"), `${container}:/tests`]);
  docker(["exec", "-w", "/app", container, "bash", "/tests/test.sh"]);
  const reward = Number(readFileSync(join(verifierLogs, "reward.txt"), "utf8").trim());
  // The score eval gives an episode: its trajectory, as the task's, with the verifier's reward.
  const score = scoreFeasible(task, { ...own, task_id: task.id, reward });
  return {
    outcome: {
      requests: requestsOf(from, name),
      calls: callsOf(own),
      effects: effectsOf(own),
      end: own.end.reason,
      deferred: deferred === "yes",
      reward,
      seed: own.seed,
      score,
    },
    exitCode: Number(readFileSync(join(logs, "hsearch-exit-code"), "utf8").trim()),
    status: trial.context?.metadata,
    atif: JSON.parse(readFileSync(join(logs, "trajectory.json"), "utf8")),
  };
}

describe("hsearch agent in a task's container, installed and run as Harbor runs it", () => {
  it("gives eval's requests, tool calls, effects, deferral, verifier reward and score for the same replies", async () => {
    const evaluated = await evalOutcomes();
    expect(evaluated.get("greet")).toMatchObject({ reward: 1, deferred: false, end: "agent_stopped" });
    expect(evaluated.get("missing-input")).toMatchObject({ reward: 0, deferred: true });
    expect(evaluated.get("greet")?.calls).toHaveLength(2);
    expect(evaluated.get("greet")?.effects).not.toEqual([]);
    for (const name of Object.keys(TASKS) as Name[]) {
      const trial = await harborTrial(name, evaluated.get(name)?.seed ?? -1);
      expect(trial.outcome, name).toEqual(evaluated.get(name));
      expect(atifProblems(trial.atif), name).toEqual([]);
      const status = name === "greet" ? "done" : "deferred";
      expect(trial.exitCode, name).toBe(AGENT_EXIT_CODES[status]);
      expect(trial.status, name).toMatchObject({ hsearch_status: status });
    }
  }, 900_000);
});
