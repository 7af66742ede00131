import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { closeRequestCaches } from "../../src/models/cache";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  type ScriptedReply,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { retailSubset } from "../helpers/task-subset";

const API_KEY = "sk-test-secret-key-0123456789";

/** A model that plays both parts (the `auto` customer with a real task model): it reads once, then gives up. */
function scriptedModel(request: RecordedRequest): ScriptedReply {
  const body = request.body as { messages: Array<{ role: string; content: string }>; tools?: unknown[] };
  const assistantTurns = body.messages.filter((m) => m.role === "assistant").length;
  const usage = { prompt_tokens: 1000, completion_tokens: 50 };
  if ((body.messages[0]?.content ?? "").startsWith("You are playing a customer"))
    return openaiCompletion({
      content: assistantTurns === 0 ? "Hi, I need help with my order." : "Okay, thanks. ###STOP###",
      usage,
    });
  if (assistantTurns === 0 && (body.tools?.length ?? 0) > 0)
    return openaiCompletion({
      toolCalls: [{ name: "find_user_id_by_email", arguments: { email: "nobody@example.com" } }],
      usage,
    });
  return openaiCompletion({ content: "I cannot help with this request.", usage });
}

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  closeRequestCaches();
  await server?.close();
  server = undefined;
});

/** The summed cost of the rollouts a run stored (the report's per-candidate cost reads these). */
function storedRolloutUsd(outDir: string): number {
  const file = readdirSync(outDir, { recursive: true, encoding: "utf8" }).find((f) => f.endsWith("run.db"));
  if (!file) throw new Error(`no run.db under ${outDir}`);
  const db = new Database(join(outDir, file), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT SUM(usd) AS usd FROM rollouts").get() as { usd: number }).usd;
  } finally {
    db.close();
  }
}

const envFor = (baseURL: string, extra: NodeJS.ProcessEnv = {}) => ({
  ...process.env,
  OPENAI_API_KEY: API_KEY,
  OPENAI_BASE_URL: baseURL,
  ...extra,
});

describe("a request cache shared across runs", () => {
  it("a second identical run makes no request and bills nothing; both end the same; no API key is stored; models from a file", async () => {
    server = await startFakeOpenAIServer(scriptedModel);
    const root = mkdtempSync(join(tmpdir(), "hsearch-shared-cache-"));
    const { dir: tasks } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
    const config = join(root, "configs", "real.yaml");
    mkdirSync(join(root, "configs"));
    writeFileSync(
      config,
      [
        "name: shared-cache",
        "suites: [retail]",
        "objective: joint",
        "seed_harness: harnesses/bare",
        `tasks: ${tasks}`,
        "rounds: 1",
        "proposals_per_round: 1",
        "task_model: openai:gpt-4.1-mini",
        "heldout: {final: false}",
        "cache: {dir: ../shared-cache}",
        "models: ../models.yaml",
        "",
      ].join("\n"),
    );
    // The models block comes from a file beside the configs (what several configs would share).
    writeFileSync(join(root, "models.yaml"), "agent: {temperature: null, max_tokens: 333}\n");
    const run = (out: string) =>
      runCli(["run", config, "--out", join(root, out), "--json"], { env: envFor(server?.baseURL ?? "") });
    const first = await run("first");
    expect(first.code, first.stderr).toBe(0);
    const sent = server.requests.length;
    expect(sent).toBeGreaterThan(0);
    const agentBodies = server.requests
      .map((request) => request.body as Record<string, unknown>)
      .filter((body) => !JSON.stringify(body).includes("You are playing a customer"));
    expect(agentBodies.length).toBeGreaterThan(0);
    for (const body of agentBodies) {
      expect(body).not.toHaveProperty("temperature");
      expect(body.max_tokens ?? body.max_completion_tokens).toBe(333);
    }
    const second = await run("second");
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests.length).toBe(sent);
    // The same outcome, round by round (commit ids differ: each run has its own repository and dates).
    const outcome = (stdout: string) => {
      const status = JSON.parse(stdout);
      return JSON.stringify({ rounds: status.rounds, score: status.selected.score }).replace(
        /[0-9a-f]{40}/g,
        "sha",
      );
    };
    expect(outcome(second.stdout)).toBe(outcome(first.stdout));
    // The first run billed every call; the second billed none, its calls all answered by the cache and counted apart.
    const [usage1, usage2] = [first, second].map((r) => JSON.parse(r.stdout).usage);
    expect(usage1.calls).toBe(sent);
    expect(usage1.usd).toBeGreaterThan(0);
    expect(usage2).toMatchObject({ calls: 0, input_tokens: 0, output_tokens: 0, usd: 0 });
    // Each stored rollout's own cost too: a rollout answered from the cache cost nothing.
    expect(storedRolloutUsd(join(root, "first"))).toBeGreaterThan(0);
    expect(storedRolloutUsd(join(root, "second"))).toBe(0);
    // Every rollout of the second run was answered whole from the cache: free, and counted as such; the first paid.
    expect(usage2.rollouts).toBe(usage1.rollouts);
    expect(usage2.cached_rollouts).toBe(usage2.rollouts);
    expect(usage1.cached_rollouts).toBeLessThan(usage1.rollouts);
    // Every call of the first run, billed or already a cache hit there (the customer opens alike for each candidate).
    const allCalls = (usage: { calls: number; cached_calls: number }) => usage.calls + usage.cached_calls;
    expect(usage2.cached_calls).toBe(allCalls(usage1));
    expect(usage2.by_role.agent).toMatchObject({
      calls: 0,
      usd: 0,
      cached_calls: allCalls(usage1.by_role.agent),
    });
    expect(usage2.by_role.customer).toMatchObject({
      calls: 0,
      cached_calls: allCalls(usage1.by_role.customer),
    });
    // The cache is the config's (relative to the config file), not inside either run.
    closeRequestCaches(); // checkpoints the WAL into the file
    const cacheBytes = readFileSync(join(root, "shared-cache", "cache.db"));
    expect(cacheBytes.includes("I cannot help with this request.")).toBe(true);
    expect(cacheBytes.includes(API_KEY)).toBe(false);
  }, 240_000);

  it("max_rollouts counts paid rollouts: a run repeated on its cache is not stopped by a budget its rollouts exceed", async () => {
    server = await startFakeOpenAIServer(scriptedModel);
    const root = mkdtempSync(join(tmpdir(), "hsearch-cached-budget-"));
    const { dir: tasks } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
    const config = (name: string, cache: string, budget: string) => {
      const file = join(root, `${name}.yaml`);
      writeFileSync(
        file,
        [
          `name: ${name}`,
          "suites: [retail]",
          "objective: joint",
          "seed_harness: harnesses/bare",
          `tasks: ${tasks}`,
          "rounds: 1",
          "proposals_per_round: 1",
          "task_model: openai:gpt-4.1-mini",
          "heldout: {final: false}",
          "concurrency: 1",
          `cache: {dir: ${cache}}`,
          budget,
          "",
        ].join("\n"),
      );
      return file;
    };
    const run = (file: string, out: string) =>
      runCli(["run", file, "--out", join(root, out), "--json"], { env: envFor(server?.baseURL ?? "") });
    const first = await run(config("fill", "cache-warm", ""), "fill");
    expect(first.code, first.stderr).toBe(0);
    const total = JSON.parse(first.stdout).usage.rollouts;
    expect(total).toBeGreaterThan(4);
    const budget = "budget: {max_rollouts: 3}";
    // On a fresh cache the budget stops the run after 3 paid rollouts.
    const cold = await run(config("cold", "cache-cold", budget), "cold");
    expect(cold.code, cold.stderr).toBe(0);
    expect(cold.stderr).toMatch(/budget exhausted: max_rollouts = 3 reached/);
    const coldStatus = JSON.parse((await runCli(["status", join(root, "cold"), "--json"])).stdout);
    expect(coldStatus.state, cold.stderr).toBe("budget_exhausted");
    expect(coldStatus.usage.rollouts - coldStatus.usage.cached_rollouts).toBe(3);
    // On the warm cache every rollout is free: the same search runs to its end, and makes no request.
    const sent = server.requests.length;
    const warm = await run(config("warm-run", "cache-warm", budget), "warm-run");
    expect(warm.code, warm.stderr).toBe(0);
    const warmStatus = JSON.parse(warm.stdout);
    expect(warmStatus.state).toBe("finished");
    expect(warmStatus.usage).toMatchObject({ rollouts: total, cached_rollouts: total, calls: 0 });
    expect(server.requests.length).toBe(sent);
    // status says so in words too.
    const text = await runCli(["status", join(root, "warm-run")]);
    expect(text.stdout).toContain(
      `usage: ${total} rollouts (${total} answered from the request cache, free)`,
    );
  }, 240_000);

  it("with an llm proposer, a second identical run in another directory sends no proposer request either", async () => {
    // The proposer proposes a README edit (a harmless change, so later rounds show it as tried); the rest as above.
    const proposal = JSON.stringify({
      proposals: [
        { rationale: "document the harness", edits: [{ path: "README.md", content: "# notes\n" }] },
      ],
    });
    const proposerCalls = () =>
      (server?.requests ?? []).filter((r) =>
        JSON.stringify(r.body).includes("You improve the harness of an AI agent"),
      ).length;
    server = await startFakeOpenAIServer((request) =>
      JSON.stringify(request.body).includes("You improve the harness of an AI agent")
        ? openaiCompletion({ content: proposal, usage: { prompt_tokens: 4000, completion_tokens: 60 } })
        : scriptedModel(request),
    );
    const root = mkdtempSync(join(tmpdir(), "hsearch-shared-proposer-"));
    const { dir: tasks } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
    const config = join(root, "proposer.yaml");
    writeFileSync(
      config,
      [
        "name: shared-proposer",
        "suites: [retail]",
        "objective: joint",
        "seed_harness: harnesses/bare",
        `tasks: ${tasks}`,
        "rounds: 2",
        "proposals_per_round: 1",
        "task_model: openai:gpt-4.1-mini",
        "meta_model: openai:gpt-4.1-mini",
        "heldout: {final: false}",
        "cache: {dir: shared-cache}",
        "",
      ].join("\n"),
    );
    const run = (out: string) =>
      runCli(["run", config, "--out", join(root, out), "--json"], { env: envFor(server?.baseURL ?? "") });
    const first = await run("first");
    expect(first.code, first.stderr).toBe(0);
    // Both rounds asked the proposer (round 2's prompt holds round 1's proposal and its diff).
    expect(proposerCalls()).toBe(2);
    const sent = server.requests.length;
    const second = await run("second");
    expect(second.code, second.stderr).toBe(0);
    expect(proposerCalls()).toBe(2);
    expect(server.requests.length).toBe(sent);
    const usage = JSON.parse(second.stdout).usage;
    expect(usage.by_role.proposer).toMatchObject({ calls: 0, cached_calls: 2 });
  }, 240_000);

  it("eval --cache user: the second eval is answered from $XDG_CACHE_HOME/hsearch, billed nothing, cached calls apart", async () => {
    server = await startFakeOpenAIServer(scriptedModel);
    const xdg = mkdtempSync(join(tmpdir(), "hsearch-xdg-"));
    const { dir: tasks } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
    const evalOnce = () =>
      runCli(
        [
          "eval",
          "--harness",
          "harnesses/bare",
          "--tasks",
          tasks,
          "--split",
          "search",
          "--model",
          "openai:gpt-4.1-mini",
          "--cache",
          "user",
          "--json",
        ],
        { env: envFor(server?.baseURL ?? "", { XDG_CACHE_HOME: xdg }) },
      );
    const first = await evalOnce();
    expect(first.code, first.stderr).toBe(0);
    const sent = server.requests.length;
    const billed = JSON.parse(first.stdout).summary.usage;
    expect(billed.calls).toBe(sent);
    expect(billed.usd).toBeGreaterThan(0);
    const second = await evalOnce();
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests.length).toBe(sent);
    const report = JSON.parse(second.stdout);
    expect(report.summary.usage).toMatchObject({ calls: 0, input_tokens: 0, output_tokens: 0, usd: 0 });
    expect(report.summary.usage.cached_calls).toBe(sent);
    expect(report.summary.usage.by_role.agent.cached_calls).toBeGreaterThan(0);
    expect(report.summary.usage.by_role.customer.cached_calls).toBeGreaterThan(0);
    expect(report.tasks).toEqual(JSON.parse(first.stdout).tasks);
    closeRequestCaches();
    const cacheBytes = readFileSync(join(xdg, "hsearch", "cache.db"));
    expect(cacheBytes.includes("Hi, I need help with my order.")).toBe(true);
    expect(cacheBytes.includes(API_KEY)).toBe(false);
  }, 240_000);

  it("a bad cache setting is exit 2 naming the file, the field and the line", async () => {
    const root = mkdtempSync(join(tmpdir(), "hsearch-bad-cache-"));
    writeFileSync(join(root, "a-file"), "not a directory");
    const write = (cacheLine: string) => {
      const file = join(root, "config.yaml");
      writeFileSync(
        file,
        [
          "name: bad-cache",
          "suites: [retail]",
          "objective: joint",
          "seed_harness: harnesses/bare",
          "rounds: 0",
          "proposals_per_round: 1",
          "task_model: sim:default",
          cacheLine,
          "",
        ].join("\n"),
      );
      return file;
    };
    for (const [line, message] of [
      ["cache: {directory: x}", "directory"],
      ["cache: {dir: 3}", "expected string"],
      ["cache: {dir: a-file}", "not a directory"],
    ] as const) {
      const file = write(line);
      const result = await runCli(["run", file, "--out", join(root, "run")]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${file}:8`);
      expect(result.stderr).toContain("cache");
      expect(result.stderr).toContain(message);
    }
    const flag = await runCli(["eval", "--harness", "harnesses/bare", "--split", "search", "--cache", "run"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--cache takes user or a directory");
  });
});
