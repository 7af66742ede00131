import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { localExecutor } from "../../src/eval/evaluate";
import { HARNESS_LIMITS, loadHarness } from "../../src/harness/load";
import { loadPriceTable } from "../../src/models/prices";
import { createRoleModels } from "../../src/models/roles";
import { offlineProviders } from "../../src/sim";
import { openRunStore } from "../../src/store";
import { connectQueueExecutor } from "../../src/workers/queue-executor";
import { startRolloutWorker } from "../../src/workers/rollout-worker";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { freePort, startRedis, type TestRedis } from "../helpers/redis-server";
import { expectSameRun, finished, runSummary, storedRollouts } from "../helpers/run-summary";
import { signalAtRollouts, stopped, withSignalPreload } from "../helpers/signal-at-rollouts";
import { retailSubset } from "../helpers/task-subset";
import { rolloutsIn, startWorkerProcess } from "../helpers/worker-process";

/** The compiled CLI (test/helpers/compiled-package.ts), which this file starts as a child process. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

/**
 * `hsearch run --workers` with `hsearch worker` processes on one machine, against a private redis-server: the same
 * selection, scores and content hash as a single-process run of the same config and seed, also when a worker is
 * SIGKILLed with rollouts in flight; and a Redis that cannot be reached is a clear exit 2.
 */

let work: string;
let config: string;
let redis: TestRedis;
let reference: ReturnType<typeof runSummary>;
const children: ChildProcess[] = [];
/** Not to be sent anywhere: the coordinator's environment has it, Redis must never see it. */
const SECRET = "sk-test-never-in-redis-7f3a";

/** The CLI; with `env` from signalAtRollouts, it signals itself once that many rollouts are stored. */
function hsearch(args: string[], env: NodeJS.ProcessEnv = {}, signalling = false): ChildProcess {
  const child = spawn(process.execPath, [...(signalling ? withSignalPreload(cli) : cli), ...args], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  children.push(child);
  return child;
}

/** A worker on `queue`, resolved once it listens; its stderr collected in `log`. */
const startWorker = (queue: string, extra: string[] = []) =>
  startWorkerProcess({
    redisUrl: redis.url,
    queue,
    cwd: work,
    cli,
    args: extra,
    spawned: (child) => children.push(child),
  });

const rolloutsBy = rolloutsIn;

/** The agent role's calls and tokens as the run stored them. */
function agentUsage(runDir: string) {
  const store = openRunStore(runDir, { readonly: true });
  try {
    const rows = store.usageTotals().filter((row) => row.role === "agent");
    expect(rows.length).toBeGreaterThan(0);
    return rows.map(({ model, calls, input_tokens, output_tokens }) => ({
      model,
      calls,
      input_tokens,
      output_tokens,
    }));
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-workers-"));
  redis = await startRedis();
  const tasks = retailSubset({ perFamily: 3, heldoutPerFamily: 2, independent: 2 }).dir;
  config = join(work, "search.yaml");
  writeFileSync(
    config,
    `name: workers\nsuites: [retail]\ntasks: ${tasks}\nobjective: joint\nseed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}\nrounds: 3\nproposals_per_round: 2\ntask_model: sim:default\nseed: 5\nconcurrency: 4\n`,
  );
  // In-process: the reference is not about the process (a child costs some 2 s CPU to start).
  const local = await runCli(["run", config, "--out", join(work, "local", "run")], { cwd: work });
  expect(local.code, local.stderr).toBe(0);
  reference = runSummary(join(work, "local", "run"));
}, 240_000);

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await redis?.stop();
});

describe("hsearch run --workers", () => {
  it("two workers select the same harness with the same scores as one process, and no API key reaches Redis", async () => {
    const watcher = new Redis(redis.url);
    const monitor = await watcher.monitor();
    let sent = "";
    monitor.on("monitor", (_time: string, args: string[]) => {
      sent += `${args.join(" ")}\n`;
    });
    const workers = [await startWorker("two"), await startWorker("two")];
    const runDir = join(work, "two", "run");
    const run = await finished(
      hsearch(["run", config, "--out", runDir, "--workers", redis.url, "--queue", "two"], {
        OPENAI_API_KEY: SECRET,
      }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /rollouts go to queue two at redis:\/\/127\.0\.0\.1:\d+\/?: 2 workers connected/,
    );
    expectSameRun(runDir, reference);
    // The agent's calls, made on the workers, are counted by the coordinator as the single process counts them.
    expect(agentUsage(runDir)).toEqual(agentUsage(join(work, "local", "run")));
    // Both workers took part, and together they ran every rollout exactly once.
    const counts = workers.map((w) => rolloutsBy(w.log()));
    expect(
      counts.every((n) => n > 0),
      JSON.stringify(counts),
    ).toBe(true);
    expect(counts[0]! + counts[1]!).toBe(reference.total);
    // The jobs did travel through Redis (the harness files and tasks), the coordinator's key did not.
    expect(sent).toMatch(/harness\.yaml/);
    expect(sent).not.toContain(SECRET);
    // No job is left behind: the coordinator removes each one once it has the result.
    expect(await watcher.keys("bull:two:[0-9a-z]*.*")).toEqual([]);
    await monitor.disconnect();
    watcher.disconnect();
    for (const worker of workers) worker.child.kill("SIGTERM");
    for (const worker of workers) expect((await worker.exit).code).toBe(0);
    console.info(
      `two workers: ${reference.total} rollouts split ${counts.join(" + ")}, content hash equal to the single-process run`,
    );
  }, 240_000);

  it("a worker SIGKILLed with rollouts in flight loses nothing: they are handed out again and the run ends the same", async () => {
    const queue = "kill";
    const stalled: string[] = [];
    const events = new QueueEvents(queue, { connection: { url: redis.url } });
    events.on("stalled", ({ jobId }) => stalled.push(jobId));
    await events.waitUntilReady();
    const watcher = new Redis(redis.url);
    // The victim alone at first, so the jobs in flight at the kill are its own.
    const victim = await startWorker(queue, ["--stall-seconds", "2"]);
    const runDir = join(work, "kill", "run");
    const coordinator = hsearch(["run", config, "--out", runDir, "--workers", redis.url, "--queue", queue]);
    const run = finished(coordinator);
    // The victim is paused (SIGSTOP) at each look, so the jobs it holds are still in flight at the kill that follows
    // (a look at a running worker raced its jobs to their end). Nothing else takes its jobs while it is paused: it
    // is the only worker, and the run cannot end without it.
    let inFlight = 0;
    while (coordinator.exitCode === null) {
      victim.child.kill("SIGSTOP");
      await stopped(victim.child);
      if (storedRollouts(runDir) >= reference.total * 0.3) {
        inFlight = await watcher.llen(`bull:${queue}:active`);
        if (inFlight > 0) break;
      }
      victim.child.kill("SIGCONT");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(inFlight, "the kill found rollouts in flight").toBeGreaterThan(0);
    victim.child.kill("SIGKILL");
    expect((await victim.exit).signal).toBe("SIGKILL");
    const storedAtKill = storedRollouts(runDir);
    const rescuer = await startWorker(queue, ["--stall-seconds", "2"]);
    const exit = await run;
    expect(exit.code, exit.stderr).toBe(0);
    expectSameRun(runDir, reference);
    // The victim's jobs were taken mid-rollout and recovered as stalled.
    expect(stalled.length).toBeGreaterThan(0);
    // Every rollout the victim did not finish, the rescuer ran. (Not `total - storedAtKill`: the coordinator stores
    // results in batches, so a result the victim finished may not be in run.db yet at the kill.) A worker logs a
    // rollout before returning it, so a finished job is always in its log; one logged but cut off is run twice.
    const rescued = rolloutsBy(rescuer.log());
    expect(rescued).toBeGreaterThan(0);
    expect(rolloutsBy(victim.log()) + rescued).toBeGreaterThanOrEqual(reference.total);
    rescuer.child.kill("SIGTERM");
    expect((await rescuer.exit).code).toBe(0);
    await events.close();
    watcher.disconnect();
    console.info(
      `worker kill: killed at ${storedAtKill}/${reference.total} stored with ${inFlight} in flight; ${stalled.length} stalled jobs re-run; 0 lost`,
    );
  }, 240_000);
});

describe("hsearch run --workers --resume", () => {
  it("a coordinator SIGKILLed mid-run resumes with its workers to the same result and leaves no job behind", async () => {
    const queue = "resume";
    const workers = [await startWorker(queue), await startWorker(queue)];
    const runDir = join(work, "resume", "run");
    // Killed right after the store commits 40% of the rollouts (polling run.db raced the run to its end).
    const target = Math.ceil(reference.total * 0.4);
    const killed = await finished(
      hsearch(
        ["run", config, "--out", runDir, "--workers", redis.url, "--queue", queue],
        signalAtRollouts(target),
        true,
      ),
    );
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    const partial = runSummary(runDir);
    expect(partial.state).toBe("running");
    expect(partial.total).toBeGreaterThanOrEqual(target);
    expect(partial.total).toBeLessThan(reference.total);
    const resumed = await runCli(["run", "--resume", runDir, "--workers", redis.url, "--queue", queue], {
      cwd: work,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expectSameRun(runDir, reference);
    // Whatever the killed coordinator had queued was either joined by the resumed one or never asked for again.
    const watcher = new Redis(redis.url);
    expect(await watcher.keys(`bull:${queue}:run.*`)).toEqual([]);
    watcher.disconnect();
    for (const worker of workers) worker.child.kill("SIGTERM");
    for (const worker of workers) expect((await worker.exit).code).toBe(0);
  }, 240_000);
});

describe("a rollout a worker cannot run", () => {
  it("fails the coordinator's rollout with the worker's reason and leaves no job behind", async () => {
    const queue = "refused";
    const ran: string[] = [];
    const worker = await startRolloutWorker({
      url: redis.url,
      queue,
      concurrency: 1,
      stallSeconds: 30,
      prices: loadPriceTable(),
      modelOptions: { extraProviders: offlineProviders },
      log: (line) => ran.push(line),
    });
    const executor = await connectQueueExecutor({
      url: redis.url,
      queue,
      run: "refused",
      models: { agent: "sim:default", customer: "auto", settings: {} },
      harnessLimits: HARNESS_LIMITS,
    });
    try {
      const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", "bare"));
      const task = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 }).tasks[0]!;
      const request = { task, seed: 3, repeat: 0 };
      // Files that do not hash to what the job says: the worker refuses rather than run another harness.
      await expect(
        executor.execute({ ...request, harness: { ...harness, hash: "0".repeat(64) } }),
      ).rejects.toThrow(
        new RegExp(
          `a worker failed the rollout of ${task.id} \\(seed 3, repeat 0\\) from queue refused at .*: .*the harness files hash to ${harness.hash}`,
        ),
      );
      // A model this worker cannot build: its reason reaches the coordinator.
      const noModel = await connectQueueExecutor({
        url: redis.url,
        queue,
        run: "refused",
        models: { agent: "nosuch:model", customer: "auto", settings: {} },
        harnessLimits: HARNESS_LIMITS,
      });
      await expect(noModel.execute({ ...request, harness })).rejects.toThrow(/nosuch/);
      await noModel.close();
      // The worker holds the files to the run's size limits, as the coordinator does.
      const tight = await connectQueueExecutor({
        url: redis.url,
        queue,
        run: "refused",
        models: { agent: "sim:default", customer: "auto", settings: {} },
        harnessLimits: { template_chars: 10, total_chars: 100 },
      });
      await expect(tight.execute({ ...request, harness })).rejects.toThrow(/limits\.harness_/);
      await tight.close();
      // The same worker still runs a good job afterwards, with the trajectory a local rollout gives.
      // Asked for twice at once, it is one job on the worker.
      const before = ran.length;
      const [remote, again] = await Promise.all([
        executor.execute({ ...request, harness }),
        executor.execute({ ...request, harness }),
      ]);
      expect(again).toEqual(remote);
      expect(ran.slice(before).filter((line) => line.startsWith(task.id))).toHaveLength(1);
      const local = await localExecutor({
        model: createRoleModels(
          { agent: "sim:default", judge: "rules", customer: "auto" },
          { prices: loadPriceTable(), extraProviders: offlineProviders },
        ).agent,
        prices: loadPriceTable(),
      })({ ...request, harness });
      expect(remote).toEqual(JSON.parse(JSON.stringify(local)));
      const watcher = new Redis(redis.url);
      expect(await watcher.keys(`bull:${queue}:refused.*`)).toEqual([]);
      watcher.disconnect();
    } finally {
      await executor.close();
      await worker.close();
    }
  }, 60_000);
});

describe("Redis going away mid-run", () => {
  it("fails the waiting rollouts once it has been gone a while, and new ones at once, naming it", async () => {
    const own = await startRedis();
    const executor = await connectQueueExecutor({
      url: own.url,
      queue: "gone",
      run: "gone",
      models: { agent: "sim:default", customer: "auto", settings: {} },
      harnessLimits: HARNESS_LIMITS,
      lostAfterMs: 1000,
    });
    const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", "bare"));
    const task = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 }).tasks[0]!;
    // No worker: the rollout waits in the queue until Redis goes.
    const waiting = executor.execute({ harness, task, seed: 1, repeat: 0 });
    // Redis goes once it holds the job (a fixed wait could end before the add on a loaded machine, and the rollout
    // would then fail as not queued).
    const watcher = new Redis(own.url);
    while ((await watcher.llen("bull:gone:wait")) === 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    watcher.disconnect();
    await own.stop();
    await expect(waiting).rejects.toThrow(/lost queue gone at redis:\/\/127\.0\.0\.1:\d+ for 1 s/);
    await expect(executor.execute({ harness, task, seed: 2, repeat: 0 })).rejects.toThrow(
      /cannot queue a rollout on queue gone at redis:\/\/127\.0\.0\.1:\d+/,
    );
    await executor.close();
  }, 60_000);
});

describe("an unusable Redis is a clear exit 2", () => {
  it("names a URL that is not a Redis URL", async () => {
    const worker = await runCli(["worker", "--redis", "http://127.0.0.1:6379"], { cwd: work });
    expect(worker.code).toBe(2);
    expect(worker.stderr).toMatch(/--redis.*http:\/\/127\.0\.0\.1:6379: a Redis URL starts with redis:\/\//);
    const run = await runCli(
      ["run", config, "--out", join(work, "bad-url", "run"), "--workers", "localhost:6379"],
      {
        cwd: work,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--workers/);
    expect(existsSync(join(work, "bad-url"))).toBe(false);
  });

  it("names a Redis nobody listens at, for the worker and the coordinator, and makes no run", async () => {
    const url = `redis://:hunter2@127.0.0.1:${await freePort()}`;
    const worker = await runCli(["worker", "--redis", url], { cwd: work });
    expect(worker.code).toBe(2);
    expect(worker.stderr).toMatch(/cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+.*ECONNREFUSED/);
    expect(worker.stderr).not.toContain("hunter2");
    const run = await runCli(["run", config, "--out", join(work, "unreachable", "run"), "--workers", url], {
      cwd: work,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/field '--workers': cannot reach Redis at/);
    expect(existsSync(join(work, "unreachable"))).toBe(false);
  });

  it("gives up on a server that accepts the connection and never answers", async () => {
    const { createServer } = await import("node:net");
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const worker = await runCli(["worker", "--redis", `redis://127.0.0.1:${port}`], { cwd: work });
      expect(worker.code).toBe(2);
      expect(worker.stderr).toMatch(new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port}`));
    } finally {
      silent.close();
    }
  }, 30_000);
});
