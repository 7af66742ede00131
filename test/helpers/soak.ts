/**
 * Soak: a search with `openai:` models against a local server whose seeded fault plan (fault-plan.ts) fails a share
 * of first calls — 429 with retry-after, 500, 503, a hung connection (the client's `limits.model_call_seconds` ends
 * it), truncated JSON, empty choices, malformed tool arguments — run once uninterrupted and once SIGKILLed at seeded
 * points and resumed each time, each on its own server with the same plan. The server also refuses (HTTP 400, which
 * no retry can help) every call of one task's customer, so that task's rollouts are infrastructure errors in both
 * runs: the resumed run must count the same ones. Shared by `bench/soak.ts` (10 kills, figures for the README) and
 * `test/search/soak.e2e.test.ts` (a small one, asserted).
 *
 * Kill points are seeded counts of answered model calls, and the kill is made by the server as that call arrives
 * (before answering it), so a kill lands anywhere — mid-episode, between rollouts, while proposing or in the final
 * evaluations — and always lands: a start is killed at its n-th answered call, with n drawn from the calls the run
 * still needs (the reference run's cache rows minus the rows this run has), so it is reached before the run can end.
 * (Polling the cache for a count missed kills when one start got past the next point in the 20 ms between polls.)
 * A resumed episode replays its answered calls from the cache and continues.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createRng } from "../../src/core/rng";
import { openRunStore } from "../../src/store";
import { SOURCE_CLI } from "./cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  openaiError,
  startFakeOpenAIServer,
} from "./fake-openai-server";
import type { FaultKind } from "./fault-plan";
import { retailSubset } from "./task-subset";

export interface SoakOptions {
  /** SIGKILLs of the interrupted run (each lands: see the kill points above). */
  kills: number;
  seed: number;
  /** The server's answer time. */
  latencyMs: number;
  /** Share of first calls that fail. */
  faultRate: number;
  /** `limits.model_call_seconds`: how long a hung call is waited for. */
  callTimeoutSeconds: number;
  rounds: number;
  proposalsPerRound: number;
  concurrency: number;
  tasks: { perFamily: number; heldoutPerFamily: number; independent: number };
}

export interface RunFacts {
  state: string | undefined;
  /** The incumbent after the last round. */
  selected: string | undefined;
  contentHash: string;
  /** `purpose:key` of every stored rollout. */
  rollouts: Set<string>;
  infraErrors: number;
  /** Model calls the run answered (request cache rows). */
  calls: number;
  /** Faults the run's server injected, by kind, and calls it refused with 400. */
  faults: Record<FaultKind, number>;
  refused: number;
}

export interface SoakResult {
  uninterrupted: RunFacts & { seconds: number };
  killed: RunFacts & { kills: number; starts: number; seconds: number };
  /** Rollouts of the uninterrupted run missing from the killed one. */
  lost: number;
}

/** Kills the run being served when its `after`-th answered call arrives (armed per start). */
interface KillSwitch {
  armed?: { after: number; kill: () => void };
}

/** The agent the server plays reads twice, then abstains when the harness offers it, else answers in text. */
function soakServer(options: SoakOptions, refusedScenario: string, killSwitch: KillSwitch = {}) {
  let refused = 0;
  const serverPromise = startFakeOpenAIServer(
    async (request) => {
      const body = request.body as {
        messages?: Array<{ role: string; content?: unknown }>;
        tools?: Array<{ function?: { name?: string } }>;
      };
      const messages = body.messages ?? [];
      const system = messages[0]?.role === "system" ? String(messages[0].content) : "";
      if (system.includes(refusedScenario)) {
        refused++;
        return openaiError(400, "soak: this customer is refused");
      }
      const armed = killSwitch.armed;
      if (armed && --armed.after === 0) {
        killSwitch.armed = undefined;
        armed.kill(); // SIGKILL before the answer: this call is unanswered, as a real crash leaves it
        return openaiError(503, "soak: the client was killed");
      }
      await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      const turns = messages.filter((message) => message.role === "assistant").length;
      const tools = (body.tools ?? []).map((tool) => tool.function?.name ?? "");
      if (turns < 2 && tools[0]) return openaiCompletion({ toolCalls: [{ name: tools[0], arguments: {} }] });
      if (tools.includes("abstain"))
        return openaiCompletion({
          toolCalls: [
            { name: "abstain", arguments: { reason: "the request cannot be done under the policy" } },
          ],
        });
      return openaiCompletion({ content: "Done." });
    },
    { faults: { seed: options.seed, rate: options.faultRate, retryAfterSeconds: 0, scope: "first_call" } },
  );
  return serverPromise.then((server) => {
    // The recorded bodies are not needed and would only grow.
    const trim = setInterval(() => server.requests.splice(0), 1000);
    trim.unref();
    return { server, refused: () => refused, stop: () => clearInterval(trim) };
  });
}

function hsearch(server: FakeOpenAIServer, cwd: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [...SOURCE_CLI, ...args], {
    cwd,
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

/** Answered model calls so far: rows of the run's request cache (0 before it exists). */
function answeredCalls(runDir: string): number {
  const path = join(runDir, "cache.db");
  if (!existsSync(path)) return 0;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM responses").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // being created: the table is not there yet
  }
}

function factsOf(runDir: string): Omit<RunFacts, "faults" | "refused"> {
  const store = openRunStore(runDir, { readonly: true });
  try {
    const rollouts = new Set<string>();
    let infraErrors = 0;
    for (const candidate of store.listCandidates())
      for (const rollout of store.listRollouts(candidate.commit)) {
        rollouts.add(`${rollout.purpose}:${rollout.key}`);
        if (rollout.infra_error) infraErrors++;
      }
    return {
      state: store.getRun()?.state,
      selected: store.listRounds().at(-1)?.incumbent_after ?? undefined,
      contentHash: store.contentHash(),
      rollouts,
      infraErrors,
      calls: answeredCalls(runDir),
    };
  } finally {
    store.close();
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const work = mkdtempSync(join(tmpdir(), "hsearch-soak-"));
  const subset = retailSubset(options.tasks);
  try {
    const refusedTask = subset.tasks.find((task) => task.split === "search" && task.user);
    if (!refusedTask?.user) throw new Error("soak: the task subset has no retail task with a customer");
    const config = join(work, "soak.yaml");
    writeFileSync(
      config,
      [
        "name: soak",
        "suites: [retail]",
        `tasks: ${subset.dir}`,
        "objective: joint",
        "seed_harness: harnesses/abandon",
        `rounds: ${options.rounds}`,
        `proposals_per_round: ${options.proposalsPerRound}`,
        "task_model: openai:soak",
        `seed: ${options.seed}`,
        `concurrency: ${options.concurrency}`,
        `limits: {model_call_seconds: ${options.callTimeoutSeconds}}`,
        // The refused customer's rollouts are a share of every candidate's by design: counted, not a reason to stop.
        "max_infra_error_rate: 1",
      ].join("\n"),
    );
    const scenario = refusedTask.user.reason_for_call;

    // The uninterrupted reference.
    const reference = await soakServer(options, scenario);
    const referenceDir = join(work, "uninterrupted", "run");
    let started = performance.now();
    const first = await exited(hsearch(reference.server, work, ["run", config, "--out", referenceDir]));
    const referenceSeconds = (performance.now() - started) / 1000;
    reference.stop();
    await reference.server.close();
    if (first.code !== 0) throw new Error(`the uninterrupted run exited ${first.code}: ${first.stderr}`);
    const uninterrupted = {
      ...factsOf(referenceDir),
      faults: { ...(reference.server.faults as Record<FaultKind, number>) },
      refused: reference.refused(),
      seconds: referenceSeconds,
    };

    // The same search, killed at seeded call counts and resumed each time.
    const killSwitch: KillSwitch = {};
    const soak = await soakServer(options, scenario, killSwitch);
    const runDir = join(work, "killed", "run");
    const rng = createRng(options.seed, "soak-kills");
    let kills = 0;
    let starts = 0;
    started = performance.now();
    for (;;) {
      // A kill before the run was recorded leaves nothing to resume (the directory may exist): start again.
      const recorded = existsSync(join(runDir, "run.db"));
      if (!recorded) rmSync(runDir, { recursive: true, force: true });
      const child = hsearch(
        soak.server,
        work,
        recorded ? ["run", "--resume", runDir] : ["run", config, "--out", runDir],
      );
      starts++;
      const left = options.kills - kills;
      if (left > 0) {
        // This start needs at least `needed` answered calls to finish (each missing cache row is one); its kill point
        // is drawn from the first 90%/left of them, so it is reached and the later kills keep calls to land in.
        const needed = uninterrupted.calls - answeredCalls(runDir);
        if (needed < left) throw new Error(`soak: only ${needed} calls left for ${left} kills`);
        const span = Math.max(1, Math.floor((0.9 * needed) / left));
        killSwitch.armed = { after: 1 + rng.int(span), kill: () => child.kill("SIGKILL") };
      }
      const result = await exited(child);
      killSwitch.armed = undefined;
      if (result.signal === "SIGKILL") {
        kills++;
        continue;
      }
      if (result.code !== 0) throw new Error(`the resumed run exited ${result.code}: ${result.stderr}`);
      break;
    }
    const killedSeconds = (performance.now() - started) / 1000;
    soak.stop();
    await soak.server.close();
    const killed = {
      ...factsOf(runDir),
      faults: { ...(soak.server.faults as Record<FaultKind, number>) },
      refused: soak.refused(),
      kills,
      starts,
      seconds: killedSeconds,
    };
    const lost = [...uninterrupted.rollouts].filter((key) => !killed.rollouts.has(key)).length;
    return { uninterrupted, killed, lost };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(subset.dir, { recursive: true, force: true });
  }
}
