import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_PROMPTS } from "../../src/harness/default-prompts";
import { runCli } from "../helpers/cli";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { realisticOpenAI } from "../helpers/realistic-openai";
import { retailSubset } from "../helpers/task-subset";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `hsearch eval --json` of the bare harness on one retail search task per family, as openai:gpt-5-mini at `baseURL`. */
function evalOneTaskPerFamily(baseURL: string, extra: string[] = ["--model", "openai:gpt-5-mini"]) {
  const { dir } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
  return runCli(
    ["eval", "--harness", "harnesses/bare", "--tasks", dir, "--split", "search", "--json", ...extra],
    { env: { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: baseURL } },
  );
}

async function evalAgainst(contextChars: number) {
  // The task model also plays the customer (the default `auto` customer with a real model).
  server = await startFakeOpenAIServer(realisticOpenAI({ contextChars: { "gpt-5-mini": contextChars } }));
  const result = await evalOneTaskPerFamily(server.baseURL);
  return { result, report: result.code === 0 ? JSON.parse(result.stdout) : undefined };
}

describe("eval against a server that behaves like a real gpt-5 model", () => {
  it("sends no temperature, answers a narrating agent, and has zero infrastructure errors", async () => {
    const { result, report } = await evalAgainst(1_000_000);
    expect(result.code).toBe(0);
    expect(report.summary).toMatchObject({ infra_errors: {}, context_overflow: 0 });
    expect(report.summary.n_scored).toBe(report.summary.n_total);
    const bodies = (server?.requests ?? []).map((r) => r.body as Record<string, unknown>);
    expect(bodies.every((b) => !("temperature" in b))).toBe(true);
    // The narration got the customer's reply, and the stop token never reached the agent.
    const agentCalls = bodies.filter((b) => !JSON.stringify(b).includes("You are playing a customer"));
    const customerCalls = bodies.filter((b) => JSON.stringify(b).includes("You are playing a customer"));
    expect(JSON.stringify(customerCalls)).toContain("Let me look up your account");
    // …and the agent was asked again after the customer's go-ahead: two agent turns per episode.
    expect(agentCalls).toHaveLength(2 * report.summary.n_total);
    expect(JSON.stringify(agentCalls)).toContain("Sure, take your time.");
    expect(JSON.stringify(agentCalls)).not.toContain("###STOP###");
    // The customer answers every text-only turn: the harness's continue message is for suites without one.
    expect(JSON.stringify(agentCalls)).not.toContain(DEFAULT_PROMPTS.continue);
    expect(result.stderr).not.toContain("no price");
  });

  it("scores a context overflow as the agent's failure inside the denominator, never as an infra error", async () => {
    const { result, report } = await evalAgainst(3_000);
    expect(result.code).toBe(0);
    expect(report.summary.context_overflow).toBe(report.summary.n_total);
    expect(report.summary.n_scored).toBe(report.summary.n_total);
    expect(report.summary.infra_errors).toEqual({});
    expect(report.summary.feasible?.solve ?? 0).toBe(0);
  });

  it("exits 1 above max_infra_error_rate and prints the first provider error in full, scoring nothing", async () => {
    server = await startFakeOpenAIServer(() => ({
      status: 401,
      json: {
        error: {
          message: "Incorrect API key provided: te**key.",
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
    }));
    const result = await evalOneTaskPerFamily(server.baseURL);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toMatchObject({
      n_scored: 0,
      blocked: null,
      feasible: null,
      infra_errors: { auth: report.summary.n_total },
    });
    expect(result.stderr).toContain("above max_infra_error_rate");
    expect(result.stderr).toContain("Incorrect API key provided: te**key.");
  });

  it("counts an LLM judge that keeps failing as that episode's infrastructure error, not an aborted eval", async () => {
    // The judge's provider refuses every call (a content filter on the judged trajectory): after the per-call
    // retries and the retry passes, the blocked episodes are infrastructure errors and the feasible ones are scored.
    const agentAndCustomer = realisticOpenAI();
    server = await startFakeOpenAIServer((request) =>
      (request.body as { model: string }).model === "gpt-5"
        ? {
            status: 400,
            json: {
              error: {
                message:
                  "The response was filtered due to the prompt triggering the content management policy.",
                type: null,
                param: "prompt",
                code: "content_filter",
              },
            },
          }
        : agentAndCustomer(request),
    );
    const result = await evalOneTaskPerFamily(server.baseURL, [
      "--model",
      "openai:gpt-5-mini",
      "--judge",
      "llm:openai:gpt-5",
    ]);
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout);
    const blocked = report.tasks.filter((row: { kind: string }) => row.kind === "blocked").length;
    expect(blocked).toBeGreaterThan(0);
    expect(report.summary.infra_errors).toEqual({ invalid_request: blocked });
    expect(report.summary.n_scored).toBe(report.summary.n_total - blocked);
    expect(report.summary.feasible.n).toBe(report.summary.n_total - blocked);
    expect(result.stderr).toContain("judge: openai:gpt-5: HTTP 400 The response was filtered");
  });

  it("takes each role's model from a --models file's spec, as a search config does; a flag still wins", async () => {
    server = await startFakeOpenAIServer(realisticOpenAI());
    const file = join(mkdtempSync(join(tmpdir(), "hsearch-models-")), "models.yaml");
    writeFileSync(
      file,
      "agent: {spec: openai:gpt-5-mini}\njudge: {spec: openai:gpt-5}\ncustomer: {spec: openai:gpt-5-nano}\n",
    );
    const result = await evalOneTaskPerFamily(server.baseURL, ["--models", file]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.model).toBe("openai:gpt-5-mini");
    const models = new Set(server.requests.map((r) => (r.body as { model: string }).model));
    expect(models).toEqual(new Set(["gpt-5-mini", "gpt-5", "gpt-5-nano"]));
    expect(report.summary.usage.by_role.judge.calls).toBeGreaterThan(0);
    expect(report.summary.usage.by_role.customer.calls).toBeGreaterThan(0);

    const flagged = await evalOneTaskPerFamily(server.baseURL, [
      "--models",
      file,
      "--model",
      "openai:gpt-4.1-mini",
      "--judge",
      "rules",
    ]);
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(JSON.parse(flagged.stdout)).toMatchObject({
      model: "openai:gpt-4.1-mini",
      summary: { usage: { by_role: { judge: { calls: 0 } } } },
    });
  });

  it("--model-call-seconds bounds a hanging call as a run's limits.model_call_seconds does; the retry answers", {
    timeout: 60_000,
  }, async () => {
    // The provider never answers the first call; the default 120 s would stall the eval for two minutes.
    const script = realisticOpenAI();
    let calls = 0;
    server = await startFakeOpenAIServer((request) => (calls++ === 0 ? { hang: true } : script(request)));
    const result = await evalOneTaskPerFamily(server.baseURL, [
      "--model",
      "openai:gpt-5-mini",
      "--model-call-seconds",
      "1",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary.n_scored).toBe(report.summary.n_total);
    expect(report.summary.infra_errors).toEqual({});
  });
});
