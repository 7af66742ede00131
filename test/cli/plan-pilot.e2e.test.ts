/**
 * Issue 22 part 4's "done when" for real models: `run --plan --pilot` against a local OpenAI-compatible server
 * estimates tokens and USD from a pilot of the seed harness, creates no run, and a short run of the same config then
 * spends within 25 % of the estimate. Bad input for --pilot exits 2 with a message naming it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { closeRequestCaches } from "../../src/models/cache";
import { runCli, runCliJson } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { realisticOpenAI, roleOfRequest } from "../helpers/realistic-openai";
import { retailSubset } from "../helpers/task-subset";

const MODELS = { agent: "gpt-5-mini", customer: "gpt-5-nano", judge: "gpt-5", proposer: "gpt-5-2025-08-07" };

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  closeRequestCaches();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

let work: string;
let config: string;

const MARKER = "Confirm the customer's request before you act.";

/**
 * The realistic provider, whose proposer edits the system prompt and whose agent, like a real model, then words its
 * replies differently: the proposal's agent, customer and judge requests differ from the seed's, so the request cache
 * answers none of them and the run pays for every rollout, as the plan assumes.
 */
function provider() {
  const realistic = realisticOpenAI();
  const system = readFileSync(join(PACKAGE_ROOT, "harnesses", "bare", "system.md"), "utf8");
  const proposal = JSON.stringify({
    proposals: [
      {
        rationale: "confirm before acting",
        edits: [{ path: "system.md", content: `${system}\n${MARKER}\n` }],
      },
    ],
  });
  return (request: Parameters<typeof realistic>[0]) => {
    const messages = (request.body as { messages: Array<{ content: string | null }> }).messages;
    if (roleOfRequest(request) === "proposer")
      return openaiCompletion({
        content: proposal,
        usage: {
          prompt_tokens: Math.ceil(JSON.stringify(messages).length / 4),
          completion_tokens: Math.ceil(proposal.length / 4),
        },
      });
    const reply = realistic(request);
    if (roleOfRequest(request) !== "agent" || !messages[0]?.content?.includes(MARKER)) return reply;
    // "Let me …" stays first: the realistic customer answers it as a request to wait.
    const message = (reply as { json: { choices: Array<{ message: { content: string } }> } }).json.choices[0]
      ?.message;
    if (message) message.content = message.content.replace(/^(Let me|I)/, (first) => `${first} (confirmed)`);
    return reply;
  };
}

async function server() {
  const started = await startFakeOpenAIServer(provider());
  servers.push(started);
  return started;
}

const env = (baseURL: string) => ({ ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: baseURL });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "hsearch-plan-pilot-"));
  const tasks = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
  config = join(work, "short.yaml");
  writeFileSync(
    config,
    [
      "name: short",
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
      "heldout: {final: false}",
      "seed: 5",
      "concurrency: 4",
    ].join("\n"),
  );
});

describe("run --plan --pilot with real models", () => {
  it("estimates tokens and USD from a pilot, makes no run, and a short run spends within 25 % of it", async () => {
    const pilotServer = await server();
    const cwd = mkdtempSync(join(tmpdir(), "hsearch-plan-cwd-"));
    const planned = await runCli(["run", "--plan", config, "--pilot", "4", "--json"], {
      env: env(pilotServer.baseURL),
      cwd,
    });
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout);
    // Nothing made in the working directory: no runs/ and no cache left behind.
    expect(readdirSync(cwd)).toEqual([]);
    expect(plan.real).toBe(true);
    expect(plan.estimate.basis.rollouts).toBe(4);
    expect(plan.estimate.basis.tasks).toHaveLength(4);
    // The pilot's calls are the server's: the agent and the customer of 4 rollouts, the judge of the blocked ones.
    expect(plan.estimate.basis.perRollout.agent.calls * 4).toBe(
      pilotServer.billed.by_model[MODELS.agent]?.calls,
    );
    // And one proposer call on round 1's prompt from the pilot's episodes, its reply a valid proposal.
    expect(pilotServer.billed.by_model[MODELS.proposer]?.calls).toBe(1);
    expect(plan.estimate.basis.proposer).toMatchObject({ validReply: true, perRound: { calls: 1 } });

    const runServer = await server();
    const runDir = join(work, "short-run");
    const ran = await runCli(["run", config, "--out", runDir, "--json"], {
      env: env(runServer.baseURL),
      cwd: work,
    });
    expect(ran.code, ran.stderr).toBe(0);
    const status = JSON.parse(ran.stdout);
    // The proposal was evaluated on every search task, as the plan's expected rollouts say.
    expect(status.usage.rollouts).toBe(plan.rollouts.search.expected + plan.rollouts.final);
    const spentTokens = status.usage.input_tokens + status.usage.output_tokens;
    const estimated = plan.estimate.expected.total;
    const estimatedTokens = estimated.input_tokens + estimated.output_tokens;
    expect(Math.abs(estimatedTokens - spentTokens) / spentTokens).toBeLessThan(0.25);
    expect(Math.abs(estimated.usd - status.usage.usd) / status.usage.usd).toBeLessThan(0.25);
    // Calls per role too: the agent's, customer's and judge's as the pilot measured them, the proposer's one call.
    for (const role of ["agent", "customer", "judge", "proposer"] as const) {
      const spent = status.usage.by_role[role].calls;
      expect(Math.abs(plan.estimate.expected[role].calls - spent) / spent, role).toBeLessThan(0.25);
    }
  }, 240_000);

  it("without --pilot says how to get the estimate, and calls no model", async () => {
    const quiet = await server();
    const plan = await runCliJson(["run", "--plan", config], { env: env(quiet.baseURL), cwd: work });
    expect(plan.code, plan.stderr).toBe(0);
    // A bound for every role, the proposer's one call a round; no estimate.
    for (const role of ["agent", "customer", "judge"])
      expect(plan.json.calls[role].max, role).toBeGreaterThan(0);
    expect(plan.json.calls.proposer.max).toBe(3);
    expect(plan.json.estimate).toBeNull();
    const result = await runCli(["run", "--plan", config], { env: env(quiet.baseURL), cwd: work });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/tokens and USD: not estimated\. `hsearch run --plan .* --pilot 4`/);
    expect(quiet.requests).toHaveLength(0);
  });

  it("prints the estimate with its basis as text", async () => {
    const pilotServer = await server();
    const result = await runCli(["run", "--plan", config, "--pilot", "2"], {
      env: env(pilotServer.baseURL),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/ESTIMATE \(not a bound\) from a pilot of 2 rollouts of the seed harness/);
    expect(result.stdout).toMatch(
      /proposer per round: 1 call, [\d,]+ input \/ [\d,]+ output tokens.*at most per call 32,000 input.*from a pilot call/,
    );
    expect(result.stdout).toMatch(/prices from .*prices\.yaml/);
    expect(existsSync(join(work, "runs"))).toBe(false);
  });

  it("refuses --pilot without a real model, a bad number, or without --plan (exit 2)", async () => {
    const demo = join(PACKAGE_ROOT, "search-configs", "demo.yaml");
    const offline = await runCli(["run", "--plan", demo, "--pilot"], { cwd: work });
    expect(offline.code).toBe(2);
    expect(offline.stderr).toMatch(/pilot.*offline.*nothing to estimate/);
    for (const bad of ["0", "abc", "1.5"]) {
      const result = await runCli(["run", "--plan", config, "--pilot", bad], { cwd: work });
      expect(result.code, bad).toBe(2);
      expect(result.stderr, bad).toMatch(/--pilot/);
    }
    const tooMany = await runCli(["run", "--plan", config, "--pilot", "500"], { cwd: work });
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toMatch(/pilot.*500 tasks, but the config has only \d+ search tasks/);
    const alone = await runCli(["run", config, "--pilot", "2"], { cwd: work });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--pilot goes with --plan/);
  });
});
