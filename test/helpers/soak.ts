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
 *
 * With `workers`, the killed run is `run --workers` with two `hsearch worker` processes on a private redis-server,
 * and what is SIGKILLed (and restarted at once) is one of the workers, the victim; the coordinator runs to the end.
 * Kill points are counted in the run's answered calls (either worker's) from the moment the victim is ready, and
 * drawn from the calls the run still needs, so every kill lands, with the victim alive and taking jobs. The victim
 * works alone until the first kill (so that kill finds its rollouts in flight); the partner starts then, and is
 * frozen (SIGSTOP) while the victim restarts. The server
 * tells the victim's calls by their API key (the request cache does not key on it): the call that triggers a kill is
 * left unanswered if it is the victim's, answered if it is the partner's. The two workers share one request cache
 * file, as the single process has its run's, so a re-run rollout replays what was answered, and the calls the run
 * still needs are counted as for the run: the reference's cache rows not in the workers' (and coordinator's) yet.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createRng } from "../../src/core/rng";
import { openRunStore } from "../../src/store";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  openaiError,
  startFakeOpenAIServer,
} from "./fake-openai-server";
import type { FaultKind } from "./fault-plan";
import { startRedis } from "./redis-server";
import { finished } from "./run-summary";
import { retailSubset } from "./task-subset";
import { startWorkerProcess, type WorkerProcess } from "./worker-process";

export interface SoakOptions {
  /** The node arguments that start the CLI (compiledCli in tests, SOURCE_CLI or the built bin in the benchmark). */
  cli: readonly string[];
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
  /**
   * Kill a worker instead of the run: `run --workers` with two workers (`concurrency` rollouts each), one SIGKILLed
   * `kills` times and restarted; `stallSeconds` is their `--stall-seconds`.
   */
  workers?: { concurrency: number; stallSeconds: number };
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
  /**
   * Killing the run: `starts` of the run. Killing a worker: `starts` of the victim worker, and `calls` the rows of
   * the workers' request cache and the coordinator's.
   */
  killed: RunFacts & { kills: number; starts: number; seconds: number; workers?: WorkerFacts };
  /** Rollouts of the uninterrupted run missing from the killed one. */
  lost: number;
}

export interface WorkerFacts {
  /** Rollouts each worker finished (the victim over all its starts); more than stored when a killed one's are re-run. */
  victim: number;
  partner: number;
}

/**
 * Kills a process when the `after`-th answered call arrives (armed per start). The call is left unanswered when it is
 * the killed process's: every call without `apiKey`, else calls made with that key (one worker's).
 */
interface KillSwitch {
  armed?: { after: number; kill: () => void; apiKey?: string };
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
        armed.kill(); // SIGKILL before the answer: the killed process's call is unanswered, as a real crash leaves it
        if (!armed.apiKey || request.headers.authorization === `Bearer ${armed.apiKey}`)
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
    return {
      server,
      refused: () => refused,
      stop: () => clearInterval(trim),
    };
  });
}

const soakEnv = (server: FakeOpenAIServer, apiKey = "sk-soak") => ({
  OPENAI_API_KEY: apiKey,
  OPENAI_BASE_URL: server.baseURL,
});

function hsearch(
  cli: readonly string[],
  server: FakeOpenAIServer,
  cwd: string,
  args: string[],
): ChildProcess {
  return spawn(process.execPath, [...cli, ...args], {
    cwd,
    env: { ...process.env, ...soakEnv(server) },
    stdio: ["ignore", "ignore", "pipe"],
  });
}

/** Answered model calls so far: rows of the run's request cache (0 before it exists), or of another cache file. */
function answeredCalls(runDir: string, path = join(runDir, "cache.db")): number {
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
    const started = performance.now();
    const first = await finished(
      hsearch(options.cli, reference.server, work, ["run", config, "--out", referenceDir]),
    );
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

    const killed = options.workers
      ? await killWorker(options, options.workers, { work, config, scenario, needed: uninterrupted.calls })
      : await killRun(options, { work, config, scenario, needed: uninterrupted.calls });
    const lost = [...uninterrupted.rollouts].filter((key) => !killed.rollouts.has(key)).length;
    return { uninterrupted, killed, lost };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(subset.dir, { recursive: true, force: true });
  }
}

interface SoakPlace {
  work: string;
  config: string;
  /** The refused customer's scenario. */
  scenario: string;
}

/** The search SIGKILLed at seeded call counts and resumed each time (`needed`: the calls the whole run answers). */
async function killRun(
  options: SoakOptions,
  where: SoakPlace & { needed: number },
): Promise<SoakResult["killed"]> {
  const killSwitch: KillSwitch = {};
  const soak = await soakServer(options, where.scenario, killSwitch);
  const runDir = join(where.work, "killed", "run");
  const rng = createRng(options.seed, "soak-kills");
  let kills = 0;
  let starts = 0;
  const started = performance.now();
  for (;;) {
    // A kill before the run was recorded leaves nothing to resume (the directory may exist): start again.
    const recorded = existsSync(join(runDir, "run.db"));
    if (!recorded) rmSync(runDir, { recursive: true, force: true });
    const child = hsearch(
      options.cli,
      soak.server,
      where.work,
      recorded ? ["run", "--resume", runDir] : ["run", where.config, "--out", runDir],
    );
    starts++;
    const left = options.kills - kills;
    if (left > 0) {
      // This start needs at least `needed` answered calls to finish (each missing cache row is one); its kill point
      // is drawn from the first 90%/left of them, so it is reached and the later kills keep calls to land in.
      const needed = where.needed - answeredCalls(runDir);
      if (needed < left) throw new Error(`soak: only ${needed} calls left for ${left} kills`);
      const span = Math.max(1, Math.floor((0.9 * needed) / left));
      killSwitch.armed = { after: 1 + rng.int(span), kill: () => child.kill("SIGKILL") };
    }
    const result = await finished(child);
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
  return {
    ...factsOf(runDir),
    faults: { ...(soak.server.faults as Record<FaultKind, number>) },
    refused: soak.refused(),
    kills,
    starts,
    seconds: killedSeconds,
  };
}

/** The two workers' API keys, so that the server can tell the victim's calls. */
const VICTIM_KEY = "sk-soak-victim";
const PARTNER_KEY = "sk-soak-partner";

/**
 * `run --workers` with two workers, the victim SIGKILLed at the run's n-th answered call since it was ready and
 * restarted at once, `kills` times; the coordinator runs to the end, uninterrupted.
 */
async function killWorker(
  options: SoakOptions,
  workers: NonNullable<SoakOptions["workers"]>,
  where: SoakPlace & { needed: number },
): Promise<SoakResult["killed"]> {
  const redis = await startRedis();
  const killSwitch: KillSwitch = {};
  const soak = await soakServer(options, where.scenario, killSwitch);
  const runDir = join(where.work, "workers", "run");
  const rng = createRng(options.seed, "soak-worker-kills");
  const children: ChildProcess[] = [];
  const cache = join(where.work, "workers-cache.db");
  const start = (apiKey: string) =>
    startWorkerProcess({
      redisUrl: redis.url,
      queue: "soak",
      cwd: where.work,
      cli: options.cli,
      env: soakEnv(soak.server, apiKey),
      args: [
        "--concurrency",
        String(workers.concurrency),
        "--stall-seconds",
        String(workers.stallSeconds),
        "--cache",
        cache,
      ],
      spawned: (child) => children.push(child),
    });
  let kills = 0;
  let starts = 0;
  let victimRollouts = 0;
  let partner: WorkerProcess | undefined;
  const started = performance.now();
  try {
    // The victim alone until its first kill: the run needs its calls, so that kill lands.
    let victim = await start(VICTIM_KEY);
    const run = finished(
      hsearch(options.cli, soak.server, where.work, [
        "run",
        where.config,
        "--out",
        runDir,
        "--workers",
        redis.url,
        "--queue",
        "soak",
      ]),
    );
    for (;;) {
      starts++;
      const left = options.kills - kills;
      // The calls the run still needs to send, at least: each call of the uninterrupted run not answered yet, less
      // those answered but not yet stored (at most one per rollout in flight).
      const needed =
        where.needed - answeredCalls(runDir) - answeredCalls(runDir, cache) - options.concurrency;
      if (left > 0) {
        // Drawn from the first 90%/(left + 1) of them, so it is reached and the later kills keep calls to land in
        // even when calls answered before the arming are stored after it.
        if (needed < left) throw new Error(`soak: only ${needed} calls left for ${left} kills`);
        const span = Math.max(1, Math.floor((0.9 * needed) / (left + 1)));
        const child = victim.child;
        killSwitch.armed = {
          apiKey: VICTIM_KEY,
          after: 1 + rng.int(span),
          kill: () => child.kill("SIGKILL"),
        };
      }
      const outcome = await Promise.race([
        victim.exit.then((exit) => ({ victim: exit })),
        run.then((exit) => ({ run: exit })),
      ]);
      killSwitch.armed = undefined;
      if ("run" in outcome) {
        if (outcome.run.code !== 0)
          throw new Error(`the coordinator exited ${outcome.run.code}: ${outcome.run.stderr}`);
        break;
      }
      victimRollouts += victim.rollouts();
      if (outcome.victim.signal !== "SIGKILL")
        throw new Error(`the victim worker exited ${outcome.victim.code}: ${outcome.victim.stderr}`);
      kills++;
      // The partner (started at the first kill) is frozen while the victim restarts, so that the run does not use up
      // the calls later kills are drawn from (a start takes seconds); a freeze longer than --stall-seconds
      // hands its jobs to the victim, and a call it had in flight may time out and be sent again.
      partner ??= await start(PARTNER_KEY);
      partner.child.kill("SIGSTOP");
      try {
        victim = await start(VICTIM_KEY);
      } finally {
        partner.child.kill("SIGCONT");
      }
    }
    for (const worker of [victim, partner]) worker?.child.kill("SIGTERM");
    for (const worker of [victim, partner]) {
      const exit = await worker?.exit;
      if (exit && exit.code !== 0) throw new Error(`a worker exited ${exit.code} on SIGTERM: ${exit.stderr}`);
    }
    victimRollouts += victim.rollouts();
    const seconds = (performance.now() - started) / 1000;
    return {
      ...factsOf(runDir),
      calls: answeredCalls(runDir) + answeredCalls(runDir, cache),
      faults: { ...(soak.server.faults as Record<FaultKind, number>) },
      refused: soak.refused(),
      kills,
      starts,
      seconds,
      workers: { victim: victimRollouts, partner: partner?.rollouts() ?? 0 },
    };
  } finally {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    soak.stop();
    await soak.server.close();
    await redis.stop();
  }
}
