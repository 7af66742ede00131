/**
 * Issue 10's "done when", end to end through the CLI: `eval` and `run` against a local OpenAI-compatible server that
 * behaves like a real gpt-5 provider — no temperature accepted, context_length_exceeded above a size, 20% of calls
 * failing at first with 429/5xx/hangs/bad bodies (a seeded fault plan), an outage for one task's customer, a model
 * that narrates before it acts — and the server's own bill against the run's usage per role.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeRequestCaches } from "../../src/models/cache";
import type { EpisodeScore } from "../../src/scoring";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import type { FaultPlan } from "../helpers/fault-plan";
import {
  expectedUsd,
  type RealisticOptions,
  realisticOpenAI,
  roleOfRequest,
} from "../helpers/realistic-openai";
import { rolesOn, type SearchConfigFile, searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";

/** One model per role, so that the server's bill by model is its bill by role. */
const MODELS = {
  agent: "gpt-5-mini",
  customer: "gpt-5-nano",
  judge: "gpt-5",
  proposer: "gpt-5-2025-08-07",
} as const;

const FAULTS: FaultPlan = { seed: 11, rate: 0.2, hangMs: 30 };
const SEED = 3;

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  closeRequestCaches();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

let work: string;
let tasks: ReturnType<typeof retailSubset>;
/** The scenario text of the task whose customer meets an outage (as it appears in a JSON body). */
let outageScenario: string;
/** Search tasks with that scenario (a blocked task shares its feasible source's customer). */
let outageTasks: number;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "hsearch-real-run-"));
  tasks = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
  const first = tasks.tasks.find((task) => task.split === "search" && task.user);
  const scenario = first?.user?.reason_for_call ?? "";
  expect(scenario.length).toBeGreaterThan(0);
  outageScenario = JSON.stringify(scenario).slice(1, -1);
  outageTasks = tasks.tasks.filter(
    (task) => task.split === "search" && task.user?.reason_for_call === scenario,
  ).length;
});

/** The customer of the outage task gets 429 on every call: a persistent infrastructure error. */
const outage = (request: RecordedRequest) =>
  roleOfRequest(request) === "customer" && JSON.stringify(request.body).includes(outageScenario);

async function server(options: RealisticOptions, faults: FaultPlan | undefined = FAULTS) {
  const started = await startFakeOpenAIServer(realisticOpenAI(options), faults ? { faults } : {});
  servers.push(started);
  return started;
}

const env = (baseURL: string) => ({ ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: baseURL });

function evalArgs(maxInfraErrorRate: number) {
  return [
    "eval",
    "--harness",
    "harnesses/bare",
    "--tasks",
    tasks.dir,
    "--split",
    "search",
    "--model",
    `openai:${MODELS.agent}`,
    "--judge",
    `llm:openai:${MODELS.judge}`,
    "--customer",
    `llm:openai:${MODELS.customer}`,
    "--seed",
    String(SEED),
    "--max-infra-error-rate",
    String(maxInfraErrorRate),
    "--json",
  ];
}

/** The study's config: every role on its own OpenAI model; `overrides` replace the base values. */
function writeConfig(name: string, overrides: Partial<SearchConfigFile>): string {
  return writeSearchConfig(
    join(work, `${name}.yaml`),
    searchConfig({
      name,
      tasks: tasks.dir,
      ...rolesOn("openai", MODELS),
      seed: SEED,
      concurrency: 4,
      ...overrides,
    }),
  );
}

/** The proposer's reply: one harmless edit (the README), so its evaluation repeats the seed's requests. */
function withProposal(options: RealisticOptions): RealisticOptions & { proposal: true } {
  return { ...options, proposal: true };
}

async function status(runDir: string) {
  const result = await runCli(["status", runDir, "--json"], { cwd: work });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

function seedRollouts(runDir: string, seed: string): EpisodeScore[] {
  const store = openRunStore(runDir, { readonly: true });
  try {
    return store.listRollouts(seed, "search").map((r) => r.scores as unknown as EpisodeScore);
  } finally {
    store.close();
  }
}

/** The agent's second requests' sizes: a context limit at their median ends about half the episodes there. */
async function medianSecondTurnSize(): Promise<number> {
  const measuring = await server({}, undefined);
  const result = await runCli(evalArgs(1), { env: env(measuring.baseURL), cwd: process.cwd() });
  expect(result.code, result.stderr).toBe(0);
  const sizes = measuring.requests
    .filter((r) => roleOfRequest(r) === "agent")
    .map((r) => r.body as { messages: Array<{ role: string }> })
    .filter((body) => body.messages.filter((m) => m.role === "assistant").length === 1)
    .map((body) => JSON.stringify(body.messages).length)
    .sort((a, b) => a - b);
  expect(new Set(sizes).size).toBeGreaterThan(1);
  return sizes[Math.floor(sizes.length / 2)] as number;
}

describe("a real-model study against a provider that fails like a real one", () => {
  it("eval and run agree on the tasks both scored, count overflow as failures and infra errors apart, and the run's cost per role is the server's bill × price", async () => {
    const limit = await medianSecondTurnSize();
    const options = { contextChars: { [MODELS.agent]: limit }, outage };

    const evalServer = await server(options);
    const evaluated = await runCli(evalArgs(0.5), { env: env(evalServer.baseURL) });
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const report = JSON.parse(evaluated.stdout);
    const summary = report.summary;
    // The outage task is the only infrastructure error; the transient faults were all retried away.
    expect(summary.infra_errors).toEqual({ rate_limit: outageTasks });
    expect(summary.n_scored).toBe(summary.n_total - outageTasks);
    expect(summary.context_overflow).toBeGreaterThan(0);
    expect(summary.context_overflow).toBeLessThan(summary.n_scored);
    const injected = Object.values(evalServer.faults ?? {}).reduce((a, b) => a + b, 0);
    expect(injected).toBeGreaterThan(0);

    const runServer = await server(withProposal(options));
    const runDir = join(work, "agree", "run");
    const ran = await runCli(["run", writeConfig("agree", { max_infra_error_rate: 0.5 }), "--out", runDir], {
      cwd: work,
      env: env(runServer.baseURL),
    });
    expect(ran.code, ran.stderr).toBe(0);
    const state = await status(runDir);
    const seed = state.rounds[0].proposals[0];
    // The same counts as eval: scored, left out, ended by the context window.
    expect(seed).toMatchObject({
      n_total: summary.n_total,
      n_scored: summary.n_scored,
      infra_errors: { rate_limit: outageTasks },
      context_overflow: summary.context_overflow,
    });
    // The same score on every task both scored; the outage task is scored by neither.
    const byTask = new Map(report.tasks.map((row: { id: string }) => [row.id, row]));
    const scored = seedRollouts(runDir, seed.commit).filter((s) => s.kind !== "infra_error");
    expect(scored).toHaveLength(summary.n_scored);
    for (const score of scored) {
      const row = byTask.get(score.task_id) as { n: number; strict_sa?: number; solve?: number };
      expect(row.n).toBe(1);
      if (score.kind === "blocked") expect(row.strict_sa).toBe(Number(score.strict_sa));
      if (score.kind === "feasible") expect(row.solve).toBe(Number(score.solve));
    }

    // gpt-5 models: no temperature ever sent, so no request was refused for it.
    const bodies = runServer.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies.filter((b) => "temperature" in b)).toEqual([]);
    // The narrating agent stays in the conversation; the stop token never reaches it.
    const agent = runServer.requests
      .filter((r) => roleOfRequest(r) === "agent")
      .map((r) => JSON.stringify(r.body));
    expect(agent.some((text) => text.includes("Sure, take your time."))).toBe(true);
    expect(agent.some((text) => text.includes("###STOP###"))).toBe(false);

    // Cost per role: billed calls, tokens and dollars are the server's own bill; request-cache hits apart.
    for (const [role, model] of Object.entries(MODELS)) {
      const bill = runServer.billed.by_model[model];
      const usage = state.usage.by_role[role];
      expect(usage, role).toMatchObject({
        calls: bill?.calls ?? 0,
        input_tokens: bill?.input_tokens ?? 0,
        output_tokens: bill?.output_tokens ?? 0,
        cache_read_tokens: bill?.cache_read_tokens ?? 0,
      });
      expect(usage.usd, role).toBeCloseTo(expectedUsd(model, bill), 10);
    }
    expect(state.usage.by_role.proposer.calls).toBeGreaterThan(0);
    expect(state.usage.by_role.agent.cache_read_tokens).toBeGreaterThan(0);
    // The proposal's evaluation asked what the seed's had asked: the request cache answered, nothing billed twice.
    expect(state.rounds[1].proposals[0].state, JSON.stringify(state.rounds[1])).toMatch(/evaluated|rejected/);
    expect(state.usage.by_role.agent.cached_calls).toBeGreaterThan(0);
    expect(state.usage.by_role.customer.cached_calls).toBeGreaterThan(0);
    const text = await runCli(["status", runDir], { cwd: work });
    expect(text.stdout).toContain(`${outageTasks} rate_limit`);
    expect(text.stdout).toMatch(/ended by the context window \(scored as failures\)/);
  }, 600_000);

  it("too many infrastructure errors stop the run with exit 1 and the first provider error in full; --resume runs them again; an unpriced model's cost is unknown", async () => {
    const state = { outage: true };
    const flaky = await server({ outage: (request) => state.outage && outage(request) });
    const config = writeConfig("outage", {
      rounds: 0,
      meta_model: "operators",
      customer: "llm:openai:gpt-5-customer-x",
    });
    const runDir = join(work, "outage", "run");
    const first = await runCli(["run", config, "--out", runDir], { cwd: work, env: env(flaky.baseURL) });
    expect(first.code).toBe(1);
    expect(first.stderr).toContain("above max_infra_error_rate");
    expect(first.stderr).toContain("fake outage: quota exhausted for this project");
    // One warning for the unpriced model, at the start.
    expect(
      first.stderr.split("no price for openai:gpt-5-customer-x in config/prices.yaml; cost shown as unknown"),
    ).toHaveLength(2);
    const stopped = await status(runDir);
    expect(stopped.state).toBe("failed");
    expect(stopped.error).toContain("fake outage");

    state.outage = false;
    const resumed = await runCli(["run", "--resume", runDir], { cwd: work, env: env(flaky.baseURL) });
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = await status(runDir);
    expect(done.state).toBe("finished");
    const seed = done.rounds[0].proposals[0];
    expect(seed.n_scored).toBe(seed.n_total);
    expect(seed.infra_errors).toEqual({});
    expect(seedRollouts(runDir, seed.commit).filter((s) => s.kind === "infra_error")).toEqual([]);
    // The unpriced customer's cost is unknown, and so is the total: never $0.
    expect(done.usage.by_role.customer.calls).toBeGreaterThan(0);
    expect(done.usage.by_role.customer.usd).toBeNull();
    expect(done.usage.usd).toBeNull();
    expect(done.usage.by_role.agent.usd).toBeGreaterThan(0);
    const text = await runCli(["status", runDir], { cwd: work });
    expect(text.stdout).toMatch(/customer: .*unknown/);
    const page = join(work, "outage", "report.html");
    const report = await runCli(["report", runDir, "--out", page], { cwd: work });
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toMatch(
      /openai:gpt-5-customer-x<\/td>(<td[^>]*>[^<]*<\/td>){5}<td class="num">unknown<\/td>/,
    );
  }, 600_000);

  it("budget.max_usd counts every role and stops cleanly; a resume with more counts no call twice; resuming a finished run changes nothing", async () => {
    const shared = await server({});
    const config = writeConfig("budget", { budget: { max_usd: 0.002 } });
    const runDir = join(work, "budget", "run");
    const first = await runCli(["run", config, "--out", runDir], { cwd: work, env: env(shared.baseURL) });
    expect(first.code, first.stderr).toBe(0);
    const stopped = await status(runDir);
    expect(stopped.state).toBe("budget_exhausted");
    expect(stopped.usage.usd).toBeGreaterThanOrEqual(0.002);

    const resumed = await runCli(["run", "--resume", runDir, "--max-usd", "1"], {
      cwd: work,
      env: env(shared.baseURL),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = await status(runDir);
    expect(done.state).toBe("finished");
    // Over both sessions, every role's billed calls and tokens are the server's bill: nothing counted twice.
    for (const [role, model] of Object.entries(MODELS)) {
      const bill = shared.billed.by_model[model];
      expect(done.usage.by_role[role], role).toMatchObject({
        calls: bill?.calls ?? 0,
        input_tokens: bill?.input_tokens ?? 0,
        output_tokens: bill?.output_tokens ?? 0,
      });
      expect(done.usage.by_role[role].usd, role).toBeCloseTo(expectedUsd(model, bill), 10);
    }

    const again = await runCli(["run", "--resume", runDir], { cwd: work, env: env(shared.baseURL) });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("already finished");
    const after = await status(runDir);
    expect(after.ended_at).toBe(done.ended_at);
    expect(after.usage).toEqual(done.usage);
  }, 600_000);
});
