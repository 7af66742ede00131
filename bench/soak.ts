/**
 * Soak and faults: a search with `openai:` models against a local server that fails 20% of first calls — 429 with
 * retry-after, 500, 503, truncated JSON, empty choices, malformed tool arguments — killed with SIGKILL at 10 seeded
 * random points (stored-rollout counts) and resumed each time, against the same search run uninterrupted (on its own server with the same
 * faults). Reports whether the selection and the run's content hash match, rollouts lost (keys of the uninterrupted
 * run missing from the resumed one), infra errors stored, and faults injected.
 *
 * A fault hits the first call of a request body (chosen by a hash of the body, so both runs meet the same faults);
 * the retry gets the answer, so a fault changes timing, never results. The agent the server plays reads twice and
 * then abstains when the harness offers `abstain`, else answers in text, so protocol edits change scores.
 * Hung connections are not injected: the provider's per-call timeout (120 s) is not a run setting.
 *
 *   npx tsx bench/soak.ts [--kills 10] [--seed 1] [--latency-ms 20]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { createRng } from "../src/core/rng";
import { openRunStore } from "../src/store";
import { SOURCE_CLI } from "../test/helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type ScriptedReply,
  startFakeOpenAIServer,
} from "../test/helpers/fake-openai-server";
import { retailSubset } from "../test/helpers/task-subset";

const { values } = parseArgs({
  options: {
    kills: { type: "string", default: "10" },
    seed: { type: "string", default: "1" },
    "latency-ms": { type: "string", default: "20" },
  },
});
const kills = Number(values.kills);
const latencyMs = Number(values["latency-ms"]);

interface ChatBody {
  messages?: Array<{ role: string }>;
  tools?: Array<{ function?: { name?: string } }>;
}

const FAULTS = ["429", "500", "503", "truncated", "empty", "bad_args"] as const;
type Fault = (typeof FAULTS)[number];

function faultFor(body: string): Fault | null {
  const digest = createHash("sha256").update(body).digest();
  if ((digest[0] as number) >= 256 * 0.2) return null;
  return FAULTS[(digest[1] as number) % FAULTS.length] as Fault;
}

function faultReply(fault: Fault): ScriptedReply {
  switch (fault) {
    case "429":
      return { status: 429, headers: { "retry-after": "0" }, json: { error: { message: "slow down" } } };
    case "500":
    case "503":
      return { status: Number(fault), json: { error: { message: "server error" } } };
    case "truncated":
      return { raw: '{"id":"x","object":"chat.completion","choices":[{"index":0,"mess' };
    case "empty":
      return { json: { id: "x", object: "chat.completion", model: "soak", choices: [] } };
    case "bad_args":
      return openaiCompletion({ toolCalls: [{ name: "get_user_details", arguments: "{not json" }] });
  }
}

async function faultyServer() {
  const seen = new Set<string>();
  const injected: Record<string, number> = {};
  const server = await startFakeOpenAIServer(async (request) => {
    await new Promise((resolve) => setTimeout(resolve, latencyMs));
    const text = JSON.stringify(request.body);
    const key = createHash("sha256").update(text).digest("hex");
    const fault = seen.has(key) ? null : faultFor(text);
    seen.add(key);
    if (fault) {
      injected[fault] = (injected[fault] ?? 0) + 1;
      return faultReply(fault);
    }
    const body = request.body as ChatBody;
    const turns = (body.messages ?? []).filter((m) => m.role === "assistant").length;
    const tools = (body.tools ?? []).map((t) => t.function?.name ?? "");
    if (turns < 2 && tools[0]) return openaiCompletion({ toolCalls: [{ name: tools[0], arguments: {} }] });
    if (tools.includes("abstain"))
      return openaiCompletion({
        toolCalls: [
          { name: "abstain", arguments: { reason: "the request cannot be done under the policy" } },
        ],
      });
    return openaiCompletion({ content: "Done." });
  });
  setInterval(() => server.requests.splice(0), 1000).unref();
  return { server, injected };
}

const work = mkdtempSync(join(tmpdir(), "hsearch-soak-"));
const tasks = retailSubset({ perFamily: 4, heldoutPerFamily: 2, independent: 4 }).dir;
const config = join(work, "soak.yaml");
writeFileSync(
  config,
  [
    "name: soak",
    "suites: [retail]",
    `tasks: ${tasks}`,
    "objective: joint",
    "seed_harness: harnesses/abandon",
    "rounds: 3",
    "proposals_per_round: 3",
    "task_model: openai:soak",
    `seed: ${values.seed}`,
    "concurrency: 16",
  ].join("\n"),
);

function hsearch(server: FakeOpenAIServer, args: string[]): ChildProcess {
  return spawn(process.execPath, [...SOURCE_CLI, ...args], {
    cwd: work,
    env: { ...process.env, OPENAI_API_KEY: "sk-soak", OPENAI_BASE_URL: server.baseURL },
    stdio: ["ignore", "ignore", "pipe"],
  });
}

function exited(child: ChildProcess) {
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
}

function storedRollouts(runDir: string): number {
  try {
    const db = new Database(join(runDir, "run.db"), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM rollouts").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // not created yet, or the schema is not there yet
  }
}

function inspect(runDir: string) {
  const store = openRunStore(runDir, { readonly: true });
  try {
    const keys = new Set<string>();
    let infra = 0;
    for (const candidate of store.listCandidates())
      for (const rollout of store.listRollouts(candidate.commit)) {
        keys.add(`${rollout.purpose}:${rollout.key}`);
        if (rollout.infra_error) infra++;
      }
    return {
      state: store.getRun()?.state,
      selected: store.listRounds().at(-1)?.incumbent_after,
      hash: store.contentHash(),
      keys,
      infra,
    };
  } finally {
    store.close();
  }
}

// The uninterrupted reference, on its own server with the same faults.
const reference = await faultyServer();
const referenceDir = join(work, "reference", "run");
const started = performance.now();
const first = await exited(hsearch(reference.server, ["run", config, "--out", referenceDir]));
const durationMs = performance.now() - started;
await reference.server.close();
if (first.code !== 0) throw new Error(`the uninterrupted run exited ${first.code}`);
const expected = inspect(referenceDir);

// The same search, killed at seeded random points and resumed each time.
const soak = await faultyServer();
const runDir = join(work, "killed", "run");
// Kill points are seeded rollout counts, increasing, so each kill lands inside the search (a time would often land
// after a resumed run, which has less left to do, already finished).
const rng = createRng(Number(values.seed), "soak-kills");
const targets = rng
  .shuffle(Array.from({ length: expected.keys.size - 1 }, (_, i) => i + 1))
  .slice(0, kills)
  .sort((a, b) => a - b);
let killed = 0;
let starts = 0;
for (let kill = 0; kill <= kills; kill++) {
  // A kill before the run was recorded leaves nothing to resume (the directory may exist): start again.
  const recorded = existsSync(join(runDir, "run.db"));
  const args = recorded ? ["run", "--resume", runDir] : ["run", config, "--out", runDir];
  if (!recorded) rmSync(runDir, { recursive: true, force: true });
  const child = hsearch(soak.server, args);
  starts++;
  const target = targets[kill];
  const poll =
    target === undefined
      ? undefined
      : setInterval(() => {
          if (storedRollouts(runDir) >= target) child.kill("SIGKILL");
        }, 20);
  const result = await exited(child);
  clearInterval(poll);
  if (result.signal === "SIGKILL") killed++;
  else if (result.code !== 0) throw new Error(`run exited ${result.code}: ${result.stderr}`);
  else if (kill < kills) break; // finished before its kill point
}
await soak.server.close();
const actual = inspect(runDir);
const lost = [...expected.keys].filter((key) => !actual.keys.has(key)).length;
const total = (injected: Record<string, number>) => Object.values(injected).reduce((a, b) => a + b, 0);

console.log(
  `uninterrupted: ${(durationMs / 1000).toFixed(1)} s, ${expected.keys.size} rollouts, ${total(reference.injected)} faults injected ${JSON.stringify(reference.injected)}`,
);
console.log(
  `killed ${killed} times with SIGKILL (${starts} starts): state ${actual.state}, ${actual.keys.size} rollouts, ${total(soak.injected)} faults injected ${JSON.stringify(soak.injected)}`,
);
console.log(
  `same selection: ${actual.selected === expected.selected} (${actual.selected?.slice(0, 12)}), same content hash: ${actual.hash === expected.hash}, rollouts lost: ${lost}, infra errors stored: ${actual.infra} (uninterrupted ${expected.infra})`,
);
