/**
 * The worker's shutdown contract, as systemd and Kubernetes use it (one SIGTERM, then SIGKILL): with nothing running
 * it exits at once, also when its Redis is gone; with rollouts in flight it gives them `--grace-seconds`, then exits
 * 1 naming what it abandoned, and those jobs stay in Redis, where another worker takes them (BullMQ's stalled-job
 * check) and the coordinator still gets its one result. Against a private redis-server the test starts and kills.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { HARNESS_LIMITS, loadHarness } from "../../src/harness/load";
import { loadPriceTable } from "../../src/models/prices";
import { offlineProviders } from "../../src/sim";
import { connectQueueExecutor } from "../../src/workers/queue-executor";
import { startRolloutWorker } from "../../src/workers/rollout-worker";
import { compiledCli } from "../helpers/compiled-package";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { realisticOpenAI } from "../helpers/realistic-openai";
import { startRedis, type TestRedis } from "../helpers/redis-server";
import { retailSubset } from "../helpers/task-subset";
import { startWorkerProcess } from "../helpers/worker-process";

let cli: string[];
let silent: Server;
let silentURL: string;
const children: ChildProcess[] = [];
const redises: TestRedis[] = [];
const servers: FakeOpenAIServer[] = [];

beforeAll(async () => {
  cli = await compiledCli();
  // A model endpoint that takes every request and never answers: a rollout on it stays in flight.
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentURL = `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`;
}, 300_000);

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  silent?.closeAllConnections();
  silent?.close();
  await Promise.all(servers.map((server) => server.close()));
  for (const redis of redises) await redis.stop();
});

async function ownRedis(): Promise<TestRedis> {
  const redis = await startRedis();
  redises.push(redis);
  return redis;
}

const worker = (redis: TestRedis, queue: string, args: string[] = []) =>
  startWorkerProcess({
    redisUrl: redis.url,
    queue,
    cwd: process.cwd(),
    cli,
    args,
    env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: silentURL },
    spawned: (child) => children.push(child),
  });

/** Seconds from now until the worker exits, and how. */
async function timedExit(exit: Promise<{ code: number | null }>) {
  const started = Date.now();
  const { code } = await exit;
  return { code, seconds: (Date.now() - started) / 1000 };
}

/** One rollout on `queue` on an OpenAI model (the worker's OPENAI_BASE_URL decides where it goes). */
async function queueRollout(redis: TestRedis, queue: string) {
  const executor = await connectQueueExecutor({
    url: redis.url,
    queue,
    run: "shutdown",
    models: { agent: "openai:gpt-5-mini", customer: "auto", settings: {} },
    harnessLimits: HARNESS_LIMITS,
    lostAfterMs: 60_000,
  });
  const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", "bare"));
  const task = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 }).tasks[0]!;
  const result = executor.execute({ harness, task, seed: 1, repeat: 0 });
  result.catch(() => {});
  // In flight once a worker holds it.
  const watcher = new Redis(redis.url);
  while ((await watcher.llen(`bull:${queue}:active`)) === 0) await new Promise((r) => setTimeout(r, 20));
  watcher.disconnect();
  return { executor, result, task };
}

describe("hsearch worker on SIGTERM", () => {
  it("with nothing running and its Redis gone, exits 0 at once", async () => {
    const redis = await ownRedis();
    const idle = await worker(redis, "idle");
    await redis.stop();
    // Until it has noticed: it is reconnecting now.
    while (!idle.log().includes("worker: redis: ")) await new Promise((r) => setTimeout(r, 20));
    idle.child.kill("SIGTERM");
    const { code, seconds } = await timedExit(idle.exit);
    expect(code, idle.log()).toBe(0);
    expect(seconds).toBeLessThan(5);
    expect(idle.log()).toContain("hsearch worker: stopping (no rollout running)");
    expect(idle.log()).toMatch(/hsearch worker: stopped/);
  }, 60_000);

  it("with a rollout in flight and its Redis gone, exits 1 after --grace-seconds naming the rollout", async () => {
    const redis = await ownRedis();
    const busy = await worker(redis, "gone", ["--grace-seconds", "2", "--concurrency", "1"]);
    const { executor, task } = await queueRollout(redis, "gone");
    await redis.stop();
    busy.child.kill("SIGTERM");
    const { code, seconds } = await timedExit(busy.exit);
    expect(code, busy.log()).toBe(1);
    // The grace period, then at most the time to let go of Redis.
    expect(seconds).toBeGreaterThanOrEqual(1.9);
    expect(seconds).toBeLessThan(7);
    expect(busy.log()).toContain("stopping: waiting up to 2 s for 1 running rollout");
    expect(busy.log()).toMatch(
      new RegExp(
        `abandoned 1 rollout still running after 2 s: ${task.id} seed 1 repeat 0 \\(run shutdown, job `,
      ),
    );
    await executor.close();
  }, 60_000);

  it("an abandoned rollout stays in Redis: another worker takes it and the coordinator gets its result", async () => {
    const redis = await ownRedis();
    const busy = await worker(redis, "handover", [
      "--grace-seconds",
      "1",
      "--stall-seconds",
      "1",
      "--concurrency",
      "1",
    ]);
    const { executor, result, task } = await queueRollout(redis, "handover");
    busy.child.kill("SIGTERM");
    const { code } = await timedExit(busy.exit);
    expect(code, busy.log()).toBe(1);
    expect(busy.log()).toContain(`abandoned 1 rollout still running after 1 s: ${task.id} seed 1 repeat 0`);
    // A worker whose model answers: the abandoned job reaches it once its lock has lapsed.
    const server = await startFakeOpenAIServer(realisticOpenAI());
    servers.push(server);
    const ran: string[] = [];
    const rescuer = await startRolloutWorker({
      url: redis.url,
      queue: "handover",
      concurrency: 1,
      // Its own lock long enough that a loaded machine's late renewal does not hand the job out a third time.
      stallSeconds: 5,
      prices: loadPriceTable(),
      modelOptions: {
        env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL },
        extraProviders: offlineProviders,
      },
      log: (line) => ran.push(line),
    });
    try {
      const trajectory = await result;
      expect(trajectory.task_id).toBe(task.id);
      expect([trajectory.seed, trajectory.repeat]).toEqual([1, 0]);
      expect(ran.filter((line) => line.startsWith(`${task.id} seed 1 repeat 0`))).toHaveLength(1);
    } finally {
      await executor.close();
      await rescuer.close();
    }
  }, 90_000);

  it("--help states the grace period and its default", () => {
    const help = spawnSync(process.execPath, [...cli, "worker", "--help"], { encoding: "utf8" });
    expect(help.stdout.replace(/\s+/g, " ")).toMatch(/--grace-seconds on SIGTERM .*\[default: 20\]/);
  });
});
