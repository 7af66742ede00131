/**
 * `run --workers` meters every role as a single process does: the agent's and the customer's calls are made on the
 * workers, the proposer's and the judge's on the coordinator, and `status --json` `usage.by_role` comes out equal to
 * the single-process run's and to the fake provider's own bill × price, request-cache hits apart.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeRequestCaches } from "../../src/models/cache";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { expectedUsd, realisticOpenAI } from "../helpers/realistic-openai";
import { startRedis, type TestRedis } from "../helpers/redis-server";
import { retailSubset } from "../helpers/task-subset";
import { startWorkerProcess } from "../helpers/worker-process";

/** One model per role, so that the server's bill by model is its bill by role. */
const MODELS = {
  agent: "gpt-5-mini",
  customer: "gpt-5-nano",
  judge: "gpt-5",
  proposer: "gpt-5-2025-08-07",
} as const;

let work: string;
let tasks: ReturnType<typeof retailSubset>;
let redis: TestRedis;
const servers: FakeOpenAIServer[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-worker-usage-"));
  tasks = retailSubset({ perFamily: 1, heldoutPerFamily: 1, independent: 0 });
  redis = await startRedis();
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  closeRequestCaches();
  await Promise.all(servers.map((server) => server.close()));
  await redis?.stop();
  rmSync(work, { recursive: true, force: true });
  rmSync(tasks.dir, { recursive: true, force: true });
});

/** A provider like the real one (usage on every reply, prompt-cache reads), failing a fifth of first calls. */
async function provider() {
  const server = await startFakeOpenAIServer(realisticOpenAI({ proposal: true }), {
    faults: { seed: 11, rate: 0.2, hangMs: 30 },
  });
  servers.push(server);
  return server;
}

const env = (server: FakeOpenAIServer) => ({
  ...process.env,
  OPENAI_API_KEY: "test-key",
  OPENAI_BASE_URL: server.baseURL,
});

async function byRole(runDir: string) {
  const result = await runCli(["status", runDir, "--json"], { cwd: work });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).usage.by_role as Record<
    string,
    { calls: number; cached_calls: number; input_tokens: number; output_tokens: number; usd: number | null }
  >;
}

describe("usage with run --workers", () => {
  it("every role's calls, tokens and cost equal the single-process run's and the provider's bill", async () => {
    const config = join(work, "usage.yaml");
    writeFileSync(
      config,
      [
        "name: usage",
        "suites: [retail]",
        `tasks: ${tasks.dir}`,
        "objective: joint",
        "seed_harness: harnesses/bare",
        "rounds: 1",
        "proposals_per_round: 1",
        `task_model: openai:${MODELS.agent}`,
        `meta_model: openai:${MODELS.proposer}`,
        `judge: llm:openai:${MODELS.judge}`,
        `customer: llm:openai:${MODELS.customer}`,
        "seed: 3",
        "concurrency: 4",
      ].join("\n"),
    );

    const alone = await provider();
    const localDir = join(work, "local", "run");
    const local = await runCli(["run", config, "--out", localDir], { cwd: work, env: env(alone) });
    expect(local.code, local.stderr).toBe(0);

    // Two workers sharing one request cache, as the single process has one.
    const shared = await provider();
    const workers = await Promise.all(
      [0, 1].map(async () =>
        startWorkerProcess({
          redisUrl: redis.url,
          queue: "usage",
          cwd: work,
          cli: await compiledCli(),
          env: env(shared),
          args: ["--cache", join(work, "workers-cache.db")],
          spawned: (child) => children.push(child),
        }),
      ),
    );
    const runDir = join(work, "workers", "run");
    const distributed = await runCli(
      ["run", config, "--out", runDir, "--workers", redis.url, "--queue", "usage"],
      { cwd: work, env: env(shared) },
    );
    expect(distributed.code, distributed.stderr).toBe(0);
    expect(workers.every((worker) => worker.rollouts() > 0)).toBe(true);

    const expected = await byRole(localDir);
    const measured = await byRole(runDir);
    // The calls the workers made reached the run's meters: the customer's too.
    expect(measured.customer?.calls).toBeGreaterThan(0);
    expect(measured.agent?.cached_calls).toBeGreaterThan(0);
    for (const [role, model] of Object.entries(MODELS)) {
      const { usd, ...counts } = measured[role] ?? {};
      const { usd: expectedRoleUsd, ...expectedCounts } = expected[role] ?? {};
      expect(counts, role).toEqual(expectedCounts);
      expect(usd, role).toBeCloseTo(expectedRoleUsd ?? Number.NaN, 10);
      const bill = shared.billed.by_model[model];
      expect(counts, role).toMatchObject({
        calls: bill?.calls ?? 0,
        input_tokens: bill?.input_tokens ?? 0,
        output_tokens: bill?.output_tokens ?? 0,
      });
      expect(usd, role).toBeCloseTo(expectedUsd(model, bill), 10);
    }
    for (const worker of workers) worker.child.kill("SIGTERM");
    for (const worker of workers) expect((await worker.exit).code).toBe(0);
  }, 600_000);
});
